"""Most frequent words in a text."""
import re
from collections import Counter

NAME = "word_frequency"
DESCRIPTION = "Counts word frequencies (case-insensitive), skipping stop words, and returns the top N."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "top": {"type": "integer", "minimum": 1, "default": 5},
        "skip_stop_words": {"type": "boolean", "default": True},
    },
    "required": ["text"],
}
EXAMPLES = [
    {
        "params": {"text": "The cat and the hat. The cat sat!", "top": 2},
        "result": {"top": [["cat", 2], ["hat", 1]], "distinct": 3, "total": 4},
    },
    {
        "params": {"text": "The cat and the hat.", "top": 1, "skip_stop_words": False},
        "result": {"top": [["the", 2]], "distinct": 4, "total": 5},
    },
]

STOP_WORDS = {"a", "an", "and", "are", "as", "at", "be", "by", "for", "in", "is", "it", "of", "on", "or", "the", "to", "was", "with"}


def run(params):
    words = re.findall(r"[a-z0-9']+", params["text"].lower())
    if params.get("skip_stop_words", True):
        words = [word for word in words if word not in STOP_WORDS]
    counts = Counter(words)
    top = [[word, count] for word, count in counts.most_common(params.get("top", 5))]
    return {"top": top, "distinct": len(counts), "total": sum(counts.values())}
