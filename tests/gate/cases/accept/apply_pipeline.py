"""Applies a pipeline of named text steps; annotations use collections.abc."""
from collections.abc import Callable, Sequence

NAME = "apply_pipeline"
DESCRIPTION = "Applies named text steps (strip, lower, upper, title, squash) in order to each string."
PARAMS = {
    "type": "object",
    "properties": {
        "texts": {"type": "array", "items": {"type": "string"}},
        "steps": {"type": "array", "items": {"enum": ["strip", "lower", "upper", "title", "squash"]}},
    },
    "required": ["texts", "steps"],
}
EXAMPLES = [
    {"params": {"texts": ["  Hello   World ", "abc"], "steps": ["strip", "squash", "upper"]}, "result": {"texts": ["HELLO WORLD", "ABC"]}},
]


def _squash(text: str) -> str:
    return " ".join(text.split())


def step_table() -> dict[str, Callable[[str], str]]:
    return {"strip": str.strip, "lower": str.lower, "upper": str.upper, "title": str.title, "squash": _squash}


def apply(texts: Sequence[str], steps: Sequence[Callable[[str], str]]) -> list[str]:
    out = []
    for text in texts:
        for step in steps:
            text = step(text)
        out.append(text)
    return out


def run(params):
    table = step_table()
    return {"texts": apply(params["texts"], [table[name] for name in params["steps"]])}
