"""Lists the UTC offset, abbreviation and DST state of time zones at a given instant."""
from datetime import datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

NAME = "tz_offset_table"
DESCRIPTION = "For a UTC instant, lists each time zone's local time, UTC offset, abbreviation and whether daylight saving time is in effect."
PARAMS = {
    "type": "object",
    "properties": {
        "instant": {"type": "string", "description": "UTC time, e.g. 2024-07-01T12:00:00Z"},
        "zones": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 100},
    },
    "required": ["instant", "zones"],
}
EXAMPLES = [
    {
        "params": {"instant": "2024-07-01T12:00:00Z", "zones": ["Europe/London", "America/Los_Angeles", "Asia/Kolkata", "Australia/Sydney", "Nowhere/Special"]},
        "result": {
            "utc": "2024-07-01T12:00:00+00:00",
            "zones": [
                {"zone": "America/Los_Angeles", "local": "2024-07-01 05:00", "offset": "-07:00", "abbreviation": "PDT", "dst": True},
                {"zone": "Europe/London", "local": "2024-07-01 13:00", "offset": "+01:00", "abbreviation": "BST", "dst": True},
                {"zone": "Asia/Kolkata", "local": "2024-07-01 17:30", "offset": "+05:30", "abbreviation": "IST", "dst": False},
                {"zone": "Australia/Sydney", "local": "2024-07-01 22:00", "offset": "+10:00", "abbreviation": "AEST", "dst": False},
            ],
            "unknown": ["Nowhere/Special"],
        },
    }
]


def offset_text(moment: datetime) -> str:
    minutes = int(moment.utcoffset().total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{rest:02d}"


def run(params):
    instant = datetime.fromisoformat(params["instant"].replace("Z", "+00:00"))
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=timezone.utc)
    rows, unknown = [], []
    for name in params["zones"]:
        try:
            local = instant.astimezone(ZoneInfo(name))
        except (ZoneInfoNotFoundError, ValueError):
            unknown.append(name)
            continue
        rows.append({
            "zone": name,
            "local": local.strftime("%Y-%m-%d %H:%M"),
            "offset": offset_text(local),
            "abbreviation": local.tzname(),
            "dst": bool(local.dst()),
        })
    rows.sort(key=lambda row: (row["offset"][0] == "+", abs(int(row["offset"][1:3]) * 60 + int(row["offset"][4:]))))
    return {"utc": instant.astimezone(timezone.utc).isoformat(), "zones": rows, "unknown": unknown}
