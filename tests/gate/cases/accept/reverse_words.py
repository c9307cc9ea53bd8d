"""Reverses words or characters, with private helpers."""

NAME = "reverse_words"
DESCRIPTION = "Reverses the order of words in a text, or the characters of each word."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "mode": {"enum": ["words", "letters"], "default": "words"},
    },
    "required": ["text"],
}
EXAMPLES = [
    {"params": {"text": "the quick brown fox"}, "result": {"text": "fox brown quick the"}},
    {"params": {"text": "hello world", "mode": "letters"}, "result": {"text": "olleh dlrow"}},
]


def _reverse(items: list) -> list:
    _out = []
    for _i in range(len(items) - 1, -1, -1):
        _out.append(items[_i])
    return _out


def _reverse_letters(word: str) -> str:
    return "".join(_reverse(list(word)))


def run(params):
    words = params["text"].split()
    if params.get("mode", "words") == "letters":
        return {"text": " ".join(_reverse_letters(w) for w in words)}
    return {"text": " ".join(_reverse(words))}
