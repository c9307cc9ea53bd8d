"""Turns a title into a URL slug."""
import re
import unicodedata

NAME = "slugify_text"
DESCRIPTION = "Turns a title into a lowercase, hyphen-separated URL slug (ASCII only)."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "The title to slugify."},
        "max_length": {"type": "integer", "minimum": 1, "default": 80},
    },
    "required": ["text"],
}
EXAMPLES = [
    {"params": {"text": "Hello World"}, "result": {"slug": "hello-world"}},
    {"params": {"text": "  Crème Brûlée: a recipe!  "}, "result": {"slug": "creme-brulee-a-recipe"}},
    {"params": {"text": "One two three", "max_length": 7}, "result": {"slug": "one-two"}},
]


def to_ascii(text: str) -> str:
    """Strip accents by decomposing and dropping what does not fit in ASCII."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def run(params: dict) -> dict:
    max_length = params.get("max_length", 80)
    slug = re.sub(r"[^a-z0-9]+", "-", to_ascii(params["text"]).lower()).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rstrip("-")
    return {"slug": slug}
