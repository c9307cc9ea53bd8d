"""Converts an integer between bases 2 to 36."""
import string

NAME = "base_convert"
DESCRIPTION = "Converts an integer written in one base (2-36) into another base."
PARAMS = {
    "type": "object",
    "properties": {
        "value": {"type": "string", "description": "the number, optionally with a leading minus sign"},
        "from_base": {"type": "integer", "minimum": 2, "maximum": 36},
        "to_base": {"type": "integer", "minimum": 2, "maximum": 36},
    },
    "required": ["value", "from_base", "to_base"],
}
EXAMPLES = [
    {"params": {"value": "ff", "from_base": 16, "to_base": 2}, "result": {"value": "11111111", "decimal": 255}},
    {"params": {"value": "-255", "from_base": 10, "to_base": 36}, "result": {"value": "-73", "decimal": -255}},
    {"params": {"value": "0", "from_base": 8, "to_base": 3}, "result": {"value": "0", "decimal": 0}},
    {"params": {"value": "129", "from_base": 2, "to_base": 10}, "result": {"error": "'129' is not a valid base-2 number"}},
]


def to_base(number: int, base: int) -> str:
    digits = string.digits + string.ascii_lowercase
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    number = abs(number)
    out: list[str] = []
    while number:
        number, remainder = divmod(number, base)
        out.append(digits[remainder])
    return sign + "".join(reversed(out))


def run(params: dict) -> dict:
    text = params["value"].strip()
    try:
        number = int(text, params["from_base"])
    except ValueError:
        return {"error": f"{text!r} is not a valid base-{params['from_base']} number"}
    return {"value": to_base(number, params["to_base"]), "decimal": number}
