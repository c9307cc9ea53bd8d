"""Computes the difference between two dates."""
from datetime import date

NAME = "date_difference"
DESCRIPTION = "Days, weeks and whole months/years between two ISO dates (YYYY-MM-DD)."
PARAMS = {
    "type": "object",
    "properties": {
        "start": {"type": "string", "format": "date"},
        "end": {"type": "string", "format": "date"},
    },
    "required": ["start", "end"],
}
EXAMPLES = [
    {
        "params": {"start": "2024-01-15", "end": "2024-03-20"},
        "result": {"days": 65, "weeks": 9, "months": 2, "years": 0, "negative": False},
    },
    {
        "params": {"start": "2020-02-29", "end": "2019-02-28"},
        "result": {"days": -366, "weeks": -52, "months": -12, "years": -1, "negative": True},
    },
]


def whole_months(first: date, second: date) -> int:
    months = (second.year - first.year) * 12 + (second.month - first.month)
    if second.day < first.day:
        months -= 1
    return months


def run(params):
    start = date.fromisoformat(params["start"])
    end = date.fromisoformat(params["end"])
    negative = end < start
    low, high = (end, start) if negative else (start, end)
    sign = -1 if negative else 1
    days = (high - low).days
    months = whole_months(low, high)
    return {
        "days": sign * days,
        "weeks": sign * (days // 7),
        "months": sign * months,
        "years": sign * (months // 12),
        "negative": negative,
    }
