"""Parses human durations like '1h 30m' or ISO 8601 'PT1H30M'."""
import re
from datetime import timedelta

NAME = "parse_duration"
DESCRIPTION = "Parses durations such as '2d 3h', '90 min', '1.5 hours' or ISO 8601 'P1DT2H' into seconds."
PARAMS = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}
EXAMPLES = [
    {"params": {"text": "1h 30m"}, "result": {"seconds": 5400, "human": "1:30:00"}},
    {"params": {"text": "2 days, 3.5 hours"}, "result": {"seconds": 185400, "human": "2 days, 3:30:00"}},
    {"params": {"text": "P1DT2H5S"}, "result": {"seconds": 93605, "human": "1 day, 2:00:05"}},
    {"params": {"text": "soon"}, "result": {"error": "could not read a duration from 'soon'"}},
]

UNITS = {
    "w": 604800, "week": 604800, "d": 86400, "day": 86400, "h": 3600, "hr": 3600, "hour": 3600,
    "m": 60, "min": 60, "minute": 60, "s": 1, "sec": 1, "second": 1,
}
HUMAN_PART = r"(\d+(?:\.\d+)?)\s*([a-z]+)"
ISO = r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?"


def from_iso(text: str) -> float | None:
    found = re.fullmatch(ISO, text)
    if not found or not any(found.groups()):
        return None
    days, hours, minutes, seconds = (int(group or 0) for group in found.groups())
    return timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds).total_seconds()


def from_human(text: str) -> float | None:
    total, matched = 0.0, False
    for amount, unit in re.findall(HUMAN_PART, text.lower()):
        unit = unit.rstrip("s") if unit not in UNITS else unit
        if unit not in UNITS:
            return None
        total += float(amount) * UNITS[unit]
        matched = True
    return total if matched else None


def run(params):
    text = params["text"].strip()
    seconds = from_iso(text.upper()) if text.upper().startswith("P") else from_human(text)
    if seconds is None:
        return {"error": f"could not read a duration from {text!r}"}
    return {"seconds": int(seconds), "human": str(timedelta(seconds=int(seconds)))}
