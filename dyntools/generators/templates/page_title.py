"""Fetches a web page through the host and returns its title."""
import html
import re

import host

NAME = "page_title"
DESCRIPTION = "Fetches a web page through the host's broker and returns the text of its <title>."
PARAMS = {
    "type": "object",
    "properties": {"url": {"type": "string", "pattern": "^https?://"}},
    "required": ["url"],
}
# The worker has no network: the host makes the request, and only to these hosts, and only
# as far as the operator's capability policy (--capabilities FILE) allows.
CAPABILITIES = {"http": ["example.com", "127.0.0.1:8765"]}
# Verified without the network: each example carries the exchange it makes, replayed in order
# (on the demo page's host, so an operator's policy that grants only it verifies them too;
# `dyntools record` records more from real calls).
EXAMPLES = [
    {
        "params": {"url": "http://127.0.0.1:8765/"},
        "result": {"title": "Example Domain", "status": 200},
        "http": [
            {
                "request": {"method": "GET", "url": "http://127.0.0.1:8765/"},
                "response": {
                    "status": 200,
                    "headers": {"content-type": "text/html; charset=utf-8"},
                    "text": "<!doctype html><html><head><title>Example\n  Domain</title>"
                    "</head><body><h1>Example Domain</h1></body></html>",
                },
            },
        ],
    },
    {
        "params": {"url": "http://127.0.0.1:8765/caf%C3%A9"},
        "result": {"title": "Café & crème", "status": 200},
        "http": [
            {
                "request": {"method": "GET", "url": "http://127.0.0.1:8765/caf%C3%A9"},
                "response": {"status": 200, "text": "<TITLE>Caf&eacute; &amp; cr&#232;me</TITLE>"},
            },
        ],
    },
    {
        "params": {"url": "http://127.0.0.1:8765/plain"},
        "result": {"title": None, "status": 200},
        "http": [
            {
                "request": {"method": "GET", "url": "http://127.0.0.1:8765/plain"},
                "response": {"status": 200, "text": "no markup here"},
            },
        ],
    },
]


def run(params):
    # A request that fails (a 4xx or 5xx answer, no connection, a timeout) raises
    # host.HttpError: left uncaught, the call fails as http_error, as it should; a title of
    # None would read as an answer.
    page = host.http_get(params["url"])
    match = re.search(r"<title[^>]*>(.*?)</title>", page["text"], re.IGNORECASE | re.DOTALL)
    title = html.unescape(" ".join(match.group(1).split())) if match else None
    return {"title": title, "status": page["status"]}
