"""Finds the shortest word ladder between two words, changing one letter at a time."""
import string
from collections import deque

NAME = "word_ladder"
DESCRIPTION = "Finds the shortest chain from a start word to an end word where each step changes one letter and every word is in the given dictionary."
PARAMS = {
    "type": "object",
    "properties": {
        "start": {"type": "string"},
        "end": {"type": "string"},
        "words": {"type": "array", "items": {"type": "string"}, "maxItems": 50000},
    },
    "required": ["start", "end", "words"],
}
EXAMPLES = [
    {
        "params": {"start": "cold", "end": "warm", "words": ["cord", "card", "ward", "warm", "worm", "word", "corm", "wore"]},
        "result": {"ladder": ["cold", "cord", "card", "ward", "warm"], "steps": 4},
    },
    {"params": {"start": "abc", "end": "xyz", "words": ["abd", "xyz"]}, "result": {"ladder": [], "steps": None}},
    {"params": {"start": "cat", "end": "dogs", "words": ["dogs"]}, "result": {"error": "start and end must have the same length"}},
]


def neighbours(word: str, vocabulary: set[str]) -> list[str]:
    found = []
    for index, original in enumerate(word):
        for letter in string.ascii_lowercase:
            if letter != original:
                candidate = word[:index] + letter + word[index + 1:]
                if candidate in vocabulary:
                    found.append(candidate)
    return found


def run(params):
    start, end = params["start"].lower(), params["end"].lower()
    if len(start) != len(end):
        return {"error": "start and end must have the same length"}
    vocabulary = {word.lower() for word in params["words"] if len(word) == len(start)} | {end}
    previous: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        word = queue.popleft()
        if word == end:
            ladder = []
            step: str | None = word
            while step is not None:
                ladder.append(step)
                step = previous[step]
            return {"ladder": ladder[::-1], "steps": len(ladder) - 1}
        for nxt in sorted(neighbours(word, vocabulary)):
            if nxt not in previous:
                previous[nxt] = word
                queue.append(nxt)
    return {"ladder": [], "steps": None}
