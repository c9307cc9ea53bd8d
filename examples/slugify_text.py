"""Turns a title into a URL slug; apostrophes join their word ("Don't" -> "dont")."""
import re
import unicodedata

NAME = "slugify_text"
DESCRIPTION = "Turns a title into a URL slug."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [
    {"params": {"text": "Hello World"}, "result": {"slug": "hello-world"}},
    {"params": {"text": "Don't Panic"}, "result": {"slug": "dont-panic"}},
]

def run(params):
    text = unicodedata.normalize("NFKD", params["text"]).encode("ascii", "ignore").decode("ascii")
    text = text.lower().replace("'", "")
    return {"slug": re.sub(r"[^a-z0-9]+", "-", text).strip("-")}
