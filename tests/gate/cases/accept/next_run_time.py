"""Next run times of a cron-like schedule, computed with datetime only."""
from datetime import datetime, timedelta

NAME = "next_run_time"
DESCRIPTION = "Given a 5-field cron expression (minute hour day month weekday) and a start time, lists the next N run times."
PARAMS = {
    "type": "object",
    "properties": {
        "cron": {"type": "string", "description": "e.g. '*/15 9-17 * * 1-5'"},
        "after": {"type": "string", "description": "ISO 8601 start time (exclusive)"},
        "count": {"type": "integer", "minimum": 1, "maximum": 50, "default": 3},
    },
    "required": ["cron", "after"],
}
EXAMPLES = [
    {
        "params": {"cron": "*/15 9-17 * * 1-5", "after": "2024-06-07T17:50"},
        "result": {"runs": ["2024-06-10T09:00:00", "2024-06-10T09:15:00", "2024-06-10T09:30:00"]},
    },
    {
        "params": {"cron": "0 0 29 2 *", "after": "2024-03-01T00:00", "count": 1},
        "result": {"runs": ["2028-02-29T00:00:00"]},
    },
    {"params": {"cron": "61 * * * *", "after": "2024-01-01T00:00"}, "result": {"error": "value 61 out of range 0-59"}},
]

FIELD_RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 6)]
SEARCH_LIMIT_MINUTES = 2635200  # five years of minutes


def expand(field: str, low: int, high: int) -> set[int]:
    values: set[int] = set()
    for part in field.split(","):
        spec, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        if spec == "*":
            start, end = low, high
        elif "-" in spec:
            start, end = (int(x) for x in spec.split("-", 1))
        else:
            start = end = int(spec)
        for value in (start, end):
            if not low <= value <= high:
                raise ValueError(f"value {value} out of range {low}-{high}")
        values.update(range(start, end + 1, step))
    return values


def matches(moment: datetime, sets: list[set[int]]) -> bool:
    minutes, hours, days, months, weekdays = sets
    cron_weekday = (moment.weekday() + 1) % 7  # cron counts Sunday as 0
    return (
        moment.minute in minutes
        and moment.hour in hours
        and moment.day in days
        and moment.month in months
        and cron_weekday in weekdays
    )


def run(params):
    fields = params["cron"].split()
    if len(fields) != 5:
        return {"error": "a cron expression has 5 fields"}
    try:
        sets = [expand(field, low, high) for field, (low, high) in zip(fields, FIELD_RANGES)]
    except ValueError as exc:
        return {"error": str(exc)}
    moment = datetime.fromisoformat(params["after"]).replace(second=0, microsecond=0)
    runs = []
    for _ in range(SEARCH_LIMIT_MINUTES):
        moment += timedelta(minutes=1)
        if matches(moment, sets):
            runs.append(moment.isoformat())
            if len(runs) == params.get("count", 3):
                break
    return {"runs": runs}
