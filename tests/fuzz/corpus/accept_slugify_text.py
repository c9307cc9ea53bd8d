"""Turns a title into a URL slug."""
import re
import unicodedata

NAME = "slugify_text"
DESCRIPTION = "Turns a title into a URL slug."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [{"params": {"text": "Hello World"}, "result": {"slug": "hello-world"}}]

def run(params):
    text = unicodedata.normalize("NFKD", params["text"]).encode("ascii", "ignore").decode("ascii")
    return {"slug": re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")}
