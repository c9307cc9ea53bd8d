"""Counts how often each letter occurs in a text."""
from collections import Counter

NAME = "letter_frequency"
DESCRIPTION = (
    "Counts each letter of a text, case-insensitively, and lists the most common first "
    "(ties in alphabetical order)."
)
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "top": {"type": "integer", "minimum": 1, "description": "keep only the N most common"},
    },
    "required": ["text"],
}
EXAMPLES = [
    {
        "params": {"text": "Hello, World!", "top": 3},
        "result": {"letters": [["l", 3], ["o", 2], ["d", 1]], "total": 10},
    },
]


def run(params):
    counts = Counter(ch for ch in params["text"].lower() if ch.isalpha())
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    top = params.get("top")
    if top is not None:
        ranked = ranked[:top]
    return {"letters": [[letter, count] for letter, count in ranked], "total": sum(counts.values())}
