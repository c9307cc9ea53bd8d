"""Converts a local time between time zones."""
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

NAME = "timezone_convert"
DESCRIPTION = "Converts a wall-clock time from one IANA time zone to another, reporting UTC offsets."
PARAMS = {
    "type": "object",
    "properties": {
        "time": {"type": "string", "description": "ISO 8601 local time, e.g. 2024-07-01T09:30"},
        "from_zone": {"type": "string"},
        "to_zone": {"type": "string"},
    },
    "required": ["time", "from_zone", "to_zone"],
}
EXAMPLES = [
    {
        "params": {"time": "2024-07-01T09:30", "from_zone": "Europe/Paris", "to_zone": "America/New_York"},
        "result": {"time": "2024-07-01T03:30:00-04:00", "from_offset": "+02:00", "to_offset": "-04:00"},
    },
    {
        "params": {"time": "2024-01-01T00:00", "from_zone": "Mars/Olympus", "to_zone": "UTC"},
        "result": {"error": "unknown time zone"},
    },
]


def offset(moment: datetime) -> str:
    text = moment.strftime("%z")
    return f"{text[:3]}:{text[3:]}"


def run(params):
    try:
        source = ZoneInfo(params["from_zone"])
        target = ZoneInfo(params["to_zone"])
    except (ZoneInfoNotFoundError, ValueError):
        return {"error": "unknown time zone"}
    local = datetime.fromisoformat(params["time"]).replace(tzinfo=source)
    converted = local.astimezone(target)
    return {"time": converted.isoformat(), "from_offset": offset(local), "to_offset": offset(converted)}
