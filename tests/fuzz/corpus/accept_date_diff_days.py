"""Days between two calendar dates."""
from datetime import date

NAME = "date_diff_days"
DESCRIPTION = (
    "Counts the days from start to end, two ISO dates (YYYY-MM-DD); negative when end is "
    "before start."
)
PARAMS = {
    "type": "object",
    "properties": {
        "start": {"type": "string", "description": "ISO date, YYYY-MM-DD"},
        "end": {"type": "string", "description": "ISO date, YYYY-MM-DD"},
    },
    "required": ["start", "end"],
}
EXAMPLES = [
    {"params": {"start": "2024-01-01", "end": "2024-03-01"}, "result": {"days": 60}},
    {"params": {"start": "2023-12-25", "end": "2023-12-24"}, "result": {"days": -1}},
]


def run(params):
    start = date.fromisoformat(params["start"])
    end = date.fromisoformat(params["end"])
    return {"days": (end - start).days}
