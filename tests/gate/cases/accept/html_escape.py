"""Escapes or unescapes HTML."""
import html
import re

NAME = "html_escape"
DESCRIPTION = "Escapes text for safe inclusion in HTML, unescapes entities, or strips tags to plain text."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "mode": {"enum": ["escape", "unescape", "strip_tags"], "default": "escape"},
    },
    "required": ["text"],
}
EXAMPLES = [
    {"params": {"text": "<a href=\"x\">Tom & Jerry's</a>"}, "result": {"text": "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#x27;s&lt;/a&gt;"}},
    {"params": {"text": "caf&eacute; &lt;3 &#8364;", "mode": "unescape"}, "result": {"text": "café <3 €"}},
    {"params": {"text": "<p>Hello <b>big</b><br/>world &amp; co</p>", "mode": "strip_tags"}, "result": {"text": "Hello big world & co"}},
]

TAG = r"<[^>]+>"


def strip_tags(text: str) -> str:
    plain = html.unescape(re.sub(TAG, " ", text))
    return " ".join(plain.split())


def run(params):
    mode = params.get("mode", "escape")
    if mode == "unescape":
        return {"text": html.unescape(params["text"])}
    if mode == "strip_tags":
        return {"text": strip_tags(params["text"])}
    return {"text": html.escape(params["text"], quote=True)}
