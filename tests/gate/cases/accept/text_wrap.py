"""Wraps, indents or shortens text."""
import textwrap

NAME = "text_wrap"
DESCRIPTION = "Wraps text to a width, optionally indenting it, or shortens it with a placeholder."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "width": {"type": "integer", "minimum": 10, "maximum": 200, "default": 40},
        "indent": {"type": "string", "default": ""},
        "shorten": {"type": "boolean", "default": False},
    },
    "required": ["text"],
}
EXAMPLES = [
    {
        "params": {"text": "The quick brown fox jumps over the lazy dog near the river bank.", "width": 20},
        "result": {"lines": ["The quick brown fox", "jumps over the lazy", "dog near the river", "bank."], "text": "The quick brown fox\njumps over the lazy\ndog near the river\nbank."},
    },
    {
        "params": {"text": "Hello   there, general Kenobi", "width": 20, "shorten": True},
        "result": {"lines": ["Hello there, [...]"], "text": "Hello there, [...]"},
    },
    {
        "params": {"text": "one two three", "width": 10, "indent": "> "},
        "result": {"lines": ["> one two", "> three"], "text": "> one two\n> three"},
    },
]


def run(params):
    width = params.get("width", 40)
    if params.get("shorten"):
        lines = [textwrap.shorten(params["text"], width=width)]
    else:
        prefix = params.get("indent", "")
        lines = textwrap.wrap(params["text"], width=width, initial_indent=prefix, subsequent_indent=prefix)
    return {"lines": lines, "text": "\n".join(lines)}
