"""Fetches a web page through the host and returns its <title>, with recorded exchanges."""
import html
import re

import host

NAME = "page_title_fetch"
DESCRIPTION = "Fetches an en.wikipedia.org article through the host and returns its title."
PARAMS = {
    "type": "object",
    "properties": {"article": {"type": "string", "pattern": "^[A-Za-z0-9_()-]{1,200}$"}},
    "required": ["article"],
}
CAPABILITIES = {"http": ["en.wikipedia.org"]}
EXAMPLES = [
    {
        "params": {"article": "Zurich"},
        "result": {"title": "Zürich – Wikipedia", "status": 200},
        "http": [
            {
                "request": {"method": "GET", "url": "https://en.wikipedia.org/wiki/Zurich"},
                "response": {
                    "status": 200,
                    "headers": {"content-type": "text/html; charset=UTF-8"},
                    "text": "<html><head><title>Zürich &ndash; Wikipedia</title></head></html>",
                },
            },
        ],
    },
    {
        "params": {"article": "Missing_page"},
        "result": {"error": "timeout"},
        "http": [
            {
                "request": {"method": "GET", "url": "https://en.wikipedia.org/wiki/Missing_page"},
                "failure": "timeout",
            },
        ],
    },
]

TITLE = r"<title>(.*?)</title>"


def run(params):
    url = f"https://en.wikipedia.org/wiki/{params['article']}"
    try:
        page = host.http_get(url, headers={"accept": "text/html"})
    except host.HttpError as error:
        return {"error": error.kind}
    found = re.search(TITLE, page["text"], re.IGNORECASE | re.DOTALL)
    title = html.unescape(found.group(1)).strip() if found else ""
    return {"title": title, "status": page["status"]}
