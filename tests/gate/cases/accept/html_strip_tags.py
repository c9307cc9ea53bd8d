"""Turns a snippet of HTML into plain text and collects its links."""
import html
import re

NAME = "html_strip_tags"
DESCRIPTION = "Removes tags, scripts and styles from an HTML snippet, decodes entities, collapses whitespace and lists the link targets."
PARAMS = {
    "type": "object",
    "properties": {"html": {"type": "string", "maxLength": 200000}},
    "required": ["html"],
}
EXAMPLES = [
    {
        "params": {
            "html": (
                "<div><h1>Caf&eacute; &amp; Bar</h1>\n<script>alert('x')</script>"
                "<p>Open <b>daily</b>.<br>See <a href=\"/menu?lang=en&amp;v=2\">the menu</a> "
                "or <a href='https://example.com/map'>map</a>.</p><style>p{color:red}</style></div>"
            )
        },
        "result": {
            "text": "Café & Bar\nOpen daily.\nSee the menu or map.",
            "links": ["/menu?lang=en&v=2", "https://example.com/map"],
            "words": 10,
        },
    },
    {"params": {"html": "plain &lt;text&gt;"}, "result": {"text": "plain <text>", "links": [], "words": 2}},
]

DROP_BLOCKS = r"(?is)<(script|style)\b.*?</\1\s*>"
LINE_BREAKS = r"(?i)<br\s*/?>|</(p|div|h[1-6]|li|tr)\s*>"
TAG = r"(?s)<[^>]+>"
HREF = r"""(?i)<a\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')"""


def run(params):
    source = re.sub(DROP_BLOCKS, "", params["html"])
    links = [html.unescape(double or single) for double, single in re.findall(HREF, source)]
    text = re.sub(LINE_BREAKS, "\n", source)
    text = html.unescape(re.sub(TAG, "", text))
    lines = [" ".join(line.split()) for line in text.splitlines()]
    text = "\n".join(line for line in lines if line)
    return {"text": text, "links": links, "words": len(text.split())}
