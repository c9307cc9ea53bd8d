"""Counts words, characters, lines and sentences in a text."""
import re

NAME = "word_count"
DESCRIPTION = "Counts words, characters, lines and sentences in a piece of text."
PARAMS = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}
EXAMPLES = [
    {
        "params": {"text": "Hello world. How are you?\nFine!"},
        "result": {"words": 6, "characters": 31, "lines": 2, "sentences": 3},
    },
    {"params": {"text": ""}, "result": {"words": 0, "characters": 0, "lines": 0, "sentences": 0}},
]

WORD_PATTERN = r"\b[\w'-]+\b"


def count_sentences(text: str) -> int:
    return len([part for part in re.split(r"[.!?]+", text) if part.strip()])


def run(params):
    text = params["text"]
    return {
        "words": len(re.findall(WORD_PATTERN, text)),
        "characters": len(text),
        "lines": len(text.splitlines()),
        "sentences": count_sentences(text),
    }
