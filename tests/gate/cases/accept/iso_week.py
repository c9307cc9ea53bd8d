"""ISO 8601 week information for a date."""
import datetime

NAME = "iso_week"
DESCRIPTION = "ISO year, week number and weekday of a date, plus the Monday and Sunday of that week."
PARAMS = {
    "type": "object",
    "properties": {"date": {"type": "string", "format": "date"}},
    "required": ["date"],
}
EXAMPLES = [
    {
        "params": {"date": "2021-01-03"},
        "result": {"iso_year": 2020, "week": 53, "weekday": 7, "label": "2020-W53-7", "monday": "2020-12-28", "sunday": "2021-01-03"},
    },
    {
        "params": {"date": "2024-12-30"},
        "result": {"iso_year": 2025, "week": 1, "weekday": 1, "label": "2025-W01-1", "monday": "2024-12-30", "sunday": "2025-01-05"},
    },
]


def run(params):
    day = datetime.date.fromisoformat(params["date"])
    iso_year, week, weekday = day.isocalendar()
    monday = day - datetime.timedelta(days=weekday - 1)
    return {
        "iso_year": iso_year,
        "week": week,
        "weekday": weekday,
        "label": f"{iso_year}-W{week:02d}-{weekday}",
        "monday": monday.isoformat(),
        "sunday": (monday + datetime.timedelta(days=6)).isoformat(),
    }
