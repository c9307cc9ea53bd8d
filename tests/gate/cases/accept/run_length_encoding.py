"""Run-length encodes or decodes a string ("aaabcc" <-> "3a1b2c")."""
import itertools
import re

NAME = "run_length_encoding"
DESCRIPTION = "Run-length encodes a string (aaabcc -> 3a1b2c) or decodes such a string back."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "mode": {"type": "string", "enum": ["encode", "decode"], "default": "encode"},
    },
    "required": ["text"],
}
EXAMPLES = [
    {"params": {"text": "aaabccddddd"}, "result": {"mode": "encode", "output": "3a1b2c5d", "ratio": 0.727}},
    {"params": {"text": "3a1b2c5d", "mode": "decode"}, "result": {"mode": "decode", "output": "aaabccddddd"}},
    {"params": {"text": "3a2", "mode": "decode"}, "result": {"error": "malformed run-length text at position 2"}},
    {"params": {"text": ""}, "result": {"mode": "encode", "output": "", "ratio": 1.0}},
]

RUN_PATTERN = r"(\d+)(\D)"


def encode(text: str) -> str:
    return "".join(f"{len(list(group))}{char}" for char, group in itertools.groupby(text))


def decode(text: str) -> str:
    pieces: list[str] = []
    position = 0
    for match in re.finditer(RUN_PATTERN, text):
        if match.start() != position:
            break
        pieces.append(match.group(2) * int(match.group(1)))
        position = match.end()
    if position != len(text):
        raise ValueError(f"malformed run-length text at position {position}")
    return "".join(pieces)


def run(params):
    text = params["text"]
    mode = params.get("mode", "encode")
    if mode == "decode":
        try:
            return {"mode": mode, "output": decode(text)}
        except ValueError as exc:
            return {"error": str(exc)}
    output = encode(text)
    ratio = round(len(output) / len(text), 3) if text else 1.0
    return {"mode": mode, "output": output, "ratio": ratio}
