"""Parses dates written in many common formats into ISO 8601."""
from datetime import datetime

NAME = "date_parse_formats"
DESCRIPTION = "Parses date strings written in common formats (ISO, US, European, RFC 2822, month names) into ISO 8601, reporting which format matched."
PARAMS = {
    "type": "object",
    "properties": {
        "dates": {"type": "array", "items": {"type": "string"}, "maxItems": 500},
        "day_first": {"type": "boolean", "default": False, "description": "read 03/04/2024 as 3 April"},
    },
    "required": ["dates"],
}
EXAMPLES = [
    {
        "params": {"dates": ["2024-03-05", "03/04/2024", "5 March 2024", "Tue, 05 Mar 2024 14:30:00 +0100", "March 5, 2024 2:30 PM", "yesterday"]},
        "result": {
            "parsed": [
                {"input": "2024-03-05", "iso": "2024-03-05T00:00:00", "format": "%Y-%m-%d"},
                {"input": "03/04/2024", "iso": "2024-03-04T00:00:00", "format": "%m/%d/%Y"},
                {"input": "5 March 2024", "iso": "2024-03-05T00:00:00", "format": "%d %B %Y"},
                {"input": "Tue, 05 Mar 2024 14:30:00 +0100", "iso": "2024-03-05T14:30:00+01:00", "format": "%a, %d %b %Y %H:%M:%S %z"},
                {"input": "March 5, 2024 2:30 PM", "iso": "2024-03-05T14:30:00", "format": "%B %d, %Y %I:%M %p"},
                {"input": "yesterday", "iso": None, "format": None},
            ],
            "unparsed": 1,
        },
    },
    {
        "params": {"dates": ["03/04/2024", "31.12.2023 23:59"], "day_first": True},
        "result": {
            "parsed": [
                {"input": "03/04/2024", "iso": "2024-04-03T00:00:00", "format": "%d/%m/%Y"},
                {"input": "31.12.2023 23:59", "iso": "2023-12-31T23:59:00", "format": "%d.%m.%Y %H:%M"},
            ],
            "unparsed": 0,
        },
    },
]

COMMON_FORMATS = [
    "%Y-%m-%d",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%d %B %Y",
    "%d %b %Y",
    "%B %d, %Y",
    "%B %d, %Y %I:%M %p",
    "%a, %d %b %Y %H:%M:%S %z",
    "%d.%m.%Y",
    "%d.%m.%Y %H:%M",
]
US_FORMATS = ["%m/%d/%Y", "%m/%d/%y"]
EU_FORMATS = ["%d/%m/%Y", "%d/%m/%y"]


def parse_one(text: str, formats: list[str]) -> dict:
    cleaned = " ".join(text.split())
    for fmt in formats:
        try:
            moment = datetime.strptime(cleaned, fmt)
        except ValueError:
            continue
        return {"input": text, "iso": moment.isoformat(), "format": fmt}
    return {"input": text, "iso": None, "format": None}


def run(params):
    formats = COMMON_FORMATS + (EU_FORMATS if params.get("day_first", False) else US_FORMATS)
    parsed = [parse_one(text, formats) for text in params["dates"]]
    return {"parsed": parsed, "unparsed": sum(1 for entry in parsed if entry["iso"] is None)}
