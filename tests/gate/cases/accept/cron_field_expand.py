"""Expands the five fields of a cron expression into explicit value lists."""
from typing import Any

NAME = "cron_field_expand"
DESCRIPTION = "Expands a five-field cron expression (minute hour day month weekday) into the explicit values of each field."
PARAMS = {
    "type": "object",
    "properties": {"expression": {"type": "string"}},
    "required": ["expression"],
}
EXAMPLES = [
    {
        "params": {"expression": "*/15 9-17 * jan,jul mon-fri"},
        "result": {
            "minute": [0, 15, 30, 45],
            "hour": [9, 10, 11, 12, 13, 14, 15, 16, 17],
            "day": "every",
            "month": [1, 7],
            "weekday": [1, 2, 3, 4, 5],
        },
    },
    {
        "params": {"expression": "5 0 1,15 * 7"},
        "result": {"minute": [5], "hour": [0], "day": [1, 15], "month": "every", "weekday": [0]},
    },
    {"params": {"expression": "61 * * * *"}, "result": {"error": "minute: 61 is outside 0-59"}},
    {"params": {"expression": "* * *"}, "result": {"error": "expected 5 fields, got 3"}},
]

FIELDS = [["minute", 0, 59], ["hour", 0, 23], ["day", 1, 31], ["month", 1, 12], ["weekday", 0, 7]]
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]


def to_number(token: str, name: str) -> int:
    token = token.lower()
    if name == "month" and token in MONTHS:
        return MONTHS.index(token) + 1
    if name == "weekday" and token in WEEKDAYS:
        return WEEKDAYS.index(token)
    if not token.isdigit():
        raise ValueError(f"{name}: {token!r} is not a number")
    return int(token)


def expand(field: str, name: str, low: int, high: int) -> list[int] | str:
    if field == "*":
        return "every"
    values: set[int] = set()
    for part in field.split(","):
        base, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        if step < 1:
            raise ValueError(f"{name}: step must be at least 1")
        if base == "*":
            first, last = low, high
        elif "-" in base:
            start, end = base.split("-", 1)
            first, last = to_number(start, name), to_number(end, name)
        else:
            first = last = to_number(base, name)
        for value in (first, last):
            if not low <= value <= high:
                raise ValueError(f"{name}: {value} is outside {low}-{high}")
        values.update(range(first, last + 1, step))
    if name == "weekday" and 7 in values:
        values.discard(7)
        values.add(0)
    return sorted(values)


def run(params: dict[str, Any]) -> dict[str, Any]:
    fields = params["expression"].split()
    if len(fields) != len(FIELDS):
        return {"error": f"expected {len(FIELDS)} fields, got {len(fields)}"}
    try:
        return {name: expand(field, name, low, high) for field, (name, low, high) in zip(fields, FIELDS)}
    except ValueError as exc:
        return {"error": str(exc)}
