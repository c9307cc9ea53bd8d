"""Greedy word wrap with underscore helpers, lambda arguments and comprehension names."""

NAME = "word_wrap_helpers"
DESCRIPTION = "Wraps text greedily to a width and reports the raggedness (sum of squared trailing gaps)."
PARAMS = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "width": {"type": "integer", "minimum": 1, "maximum": 200}},
    "required": ["text", "width"],
}
EXAMPLES = [
    {"params": {"text": "the quick brown fox jumps over the lazy dog", "width": 10},
     "result": {"lines": ["the quick", "brown fox", "jumps over", "the lazy", "dog"], "raggedness": 6}},
]


def _wrap(words: list[str], width: int) -> list[str]:
    lines: list[str] = []
    _current: list[str] = []
    for _word in words:
        if _current and len(" ".join([*_current, _word])) > width:
            lines.append(" ".join(_current))
            _current = []
        _current.append(_word)
    if _current:
        lines.append(" ".join(_current))
    return lines


def run(params):
    width = params["width"]
    lines = _wrap(params["text"].split(), width)
    _gap = lambda _line: (width - len(_line)) ** 2
    raggedness = sum(_gap(_l) for _l in lines[:-1])
    return {"lines": lines, "raggedness": raggedness}
