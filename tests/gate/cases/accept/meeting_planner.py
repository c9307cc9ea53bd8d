"""Shows a meeting time in each participant's time zone and flags out-of-hours slots."""
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

NAME = "meeting_planner"
DESCRIPTION = "Converts a meeting time from the organiser's time zone into each participant's local time and flags times outside 08:00-18:00."
PARAMS = {
    "type": "object",
    "properties": {
        "when": {"type": "string", "description": "local time of the organiser, 'YYYY-MM-DD HH:MM'"},
        "organiser_zone": {"type": "string"},
        "participants": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "required": ["when", "organiser_zone", "participants"],
}
EXAMPLES = [
    {
        "params": {
            "when": "2024-03-15 09:30",
            "organiser_zone": "America/New_York",
            "participants": {"lena": "Europe/Berlin", "kenji": "Asia/Tokyo", "raj": "Asia/Kolkata"},
        },
        "result": {
            "utc": "2024-03-15T13:30:00+00:00",
            "local": {
                "lena": {"time": "2024-03-15 14:30", "zone": "CET", "working_hours": True},
                "kenji": {"time": "2024-03-15 22:30", "zone": "JST", "working_hours": False},
                "raj": {"time": "2024-03-15 19:00", "zone": "IST", "working_hours": False},
            },
            "all_in_hours": False,
        },
    },
    {
        "params": {"when": "2024-03-15 09:30", "organiser_zone": "Mars/Olympus", "participants": {}},
        "result": {"error": "unknown time zone: Mars/Olympus"},
    },
    {
        "params": {"when": "15/03/2024", "organiser_zone": "UTC", "participants": {}},
        "result": {"error": "when must look like 2024-03-15 09:30"},
    },
]

TIME_FORMAT = "%Y-%m-%d %H:%M"
DAY_START = 8
DAY_END = 18


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone: {name}") from None


def run(params):
    try:
        naive = datetime.strptime(params["when"], TIME_FORMAT)
    except ValueError:
        return {"error": "when must look like 2024-03-15 09:30"}
    try:
        start = naive.replace(tzinfo=zone(params["organiser_zone"]))
        local = {}
        for person, zone_name in params["participants"].items():
            there = start.astimezone(zone(zone_name))
            local[person] = {
                "time": there.strftime(TIME_FORMAT),
                "zone": there.tzname(),
                "working_hours": DAY_START <= there.hour < DAY_END,
            }
    except ValueError as exc:
        return {"error": str(exc)}
    return {
        "utc": start.astimezone(ZoneInfo("UTC")).isoformat(),
        "local": local,
        "all_in_hours": all(entry["working_hours"] for entry in local.values()),
    }
