"""Counts or adds business days, skipping weekends and holidays."""
from datetime import date, timedelta

NAME = "business_days"
DESCRIPTION = "Counts business days between two dates, or adds N business days to a date, skipping weekends and given holidays."
PARAMS = {
    "type": "object",
    "properties": {
        "start": {"type": "string", "format": "date"},
        "end": {"type": "string", "format": "date"},
        "add": {"type": "integer"},
        "holidays": {"type": "array", "items": {"type": "string", "format": "date"}, "default": []},
    },
    "required": ["start"],
}
EXAMPLES = [
    {"params": {"start": "2024-05-01", "end": "2024-05-31"}, "result": {"business_days": 23}},
    {"params": {"start": "2024-12-20", "add": 3, "holidays": ["2024-12-25"]}, "result": {"date": "2024-12-26"}},
    {"params": {"start": "2024-05-01"}, "result": {"error": "give either end or add"}},
]

WEEKEND = (5, 6)


def is_business_day(day: date, holidays: set[date]) -> bool:
    return day.weekday() not in WEEKEND and day not in holidays


def run(params):
    start = date.fromisoformat(params["start"])
    holidays = {date.fromisoformat(text) for text in params.get("holidays", [])}
    if "end" in params:
        end = date.fromisoformat(params["end"])
        span = (end - start).days
        days = (start + timedelta(days=offset) for offset in range(span + 1))
        return {"business_days": sum(1 for day in days if is_business_day(day, holidays))}
    if "add" in params:
        remaining, step, current = abs(params["add"]), 1 if params["add"] >= 0 else -1, start
        while remaining:
            current += timedelta(days=step)
            if is_business_day(current, holidays):
                remaining -= 1
        return {"date": current.isoformat()}
    return {"error": "give either end or add"}
