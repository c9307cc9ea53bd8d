"""Counts the words, characters and lines of a text."""

NAME = "word_count"
DESCRIPTION = "Counts the words (whitespace-separated), characters and lines of a text."
PARAMS = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}
EXAMPLES = [
    {
        "params": {"text": "The quick brown fox\njumps over the lazy dog"},
        "result": {"words": 9, "characters": 43, "lines": 2},
    },
    {"params": {"text": ""}, "result": {"words": 0, "characters": 0, "lines": 0}},
]


def run(params):
    text = params["text"]
    return {
        "words": len(text.split()),
        "characters": len(text),
        "lines": len(text.splitlines()),
    }
