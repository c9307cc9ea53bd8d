"""Turns a number of seconds into a human-readable duration and back."""
import re

NAME = "humanize_duration"
DESCRIPTION = "Formats seconds as a readable duration like '2 days, 3 hours' or parses such text (or '1h30m') back into seconds."
PARAMS = {
    "type": "object",
    "properties": {
        "seconds": {"type": "integer", "minimum": 0},
        "text": {"type": "string"},
        "max_units": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
    },
}
EXAMPLES = [
    {"params": {"seconds": 183845}, "result": {"text": "2 days, 3 hours", "seconds": 183845}},
    {"params": {"seconds": 183845, "max_units": 4}, "result": {"text": "2 days, 3 hours, 4 minutes, 5 seconds", "seconds": 183845}},
    {"params": {"seconds": 0}, "result": {"text": "0 seconds", "seconds": 0}},
    {"params": {"text": "1h30m"}, "result": {"seconds": 5400, "text": "1 hour, 30 minutes"}},
    {"params": {"text": "2 weeks 1 day"}, "result": {"seconds": 1296000, "text": "15 days"}},
    {"params": {"text": "soon"}, "result": {"error": "could not read a duration from 'soon'"}},
]

UNITS = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]]
PARSE_UNITS = {"w": 604800, "week": 604800, "d": 86400, "day": 86400, "h": 3600, "hour": 3600,
               "m": 60, "min": 60, "minute": 60, "s": 1, "sec": 1, "second": 1}


def humanize(seconds: int, max_units: int) -> str:
    parts: list[str] = []
    for unit, size in UNITS:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}{'s' if count != 1 else ''}")
    return ", ".join(parts[:max_units]) or "0 seconds"


def parse(text: str) -> int | None:
    matches = re.findall(r"(\d+)\s*([a-z]+)", text.lower())
    if not matches:
        return None
    total = 0
    for number, unit in matches:
        unit = unit.removesuffix("s") if unit not in PARSE_UNITS else unit
        if unit not in PARSE_UNITS:
            return None
        total += int(number) * PARSE_UNITS[unit]
    return total


def run(params):
    max_units = params.get("max_units", 2)
    if "seconds" in params:
        return {"text": humanize(params["seconds"], max_units), "seconds": params["seconds"]}
    text = params.get("text", "")
    seconds = parse(text)
    if seconds is None:
        return {"error": f"could not read a duration from {text!r}"}
    return {"seconds": seconds, "text": humanize(seconds, max_units)}
