"""Merges overlapping time intervals and finds the free gaps between them."""
from datetime import datetime, timedelta

NAME = "interval_merge"
DESCRIPTION = "Merges overlapping busy intervals (ISO datetimes) and lists the free gaps of at least a minimum length inside a window."
PARAMS = {
    "type": "object",
    "properties": {
        "busy": {
            "type": "array",
            "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
        },
        "window": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
        "min_gap_minutes": {"type": "integer", "minimum": 0, "default": 0},
    },
    "required": ["busy", "window"],
}
EXAMPLES = [
    {
        "params": {
            "busy": [
                ["2024-05-06T10:00", "2024-05-06T11:00"],
                ["2024-05-06T09:00", "2024-05-06T09:30"],
                ["2024-05-06T10:30", "2024-05-06T12:00"],
                ["2024-05-06T13:00", "2024-05-06T13:15"],
            ],
            "window": ["2024-05-06T09:00", "2024-05-06T17:00"],
            "min_gap_minutes": 45,
        },
        "result": {
            "merged": [["2024-05-06T09:00", "2024-05-06T09:30"], ["2024-05-06T10:00", "2024-05-06T12:00"], ["2024-05-06T13:00", "2024-05-06T13:15"]],
            "free": [["2024-05-06T12:00", "2024-05-06T13:00"], ["2024-05-06T13:15", "2024-05-06T17:00"]],
            "busy_minutes": 165,
        },
    },
    {
        "params": {"busy": [["2024-05-06T11:00", "2024-05-06T10:00"]], "window": ["2024-05-06T09:00", "2024-05-06T17:00"]},
        "result": {"error": "interval 1 ends before it starts"},
    },
]


def stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="minutes")


def run(params):
    intervals: list[tuple[datetime, datetime]] = []
    for index, (start, end) in enumerate(params["busy"], start=1):
        begin, finish = datetime.fromisoformat(start), datetime.fromisoformat(end)
        if finish < begin:
            return {"error": f"interval {index} ends before it starts"}
        intervals.append((begin, finish))
    merged: list[list[datetime]] = []
    for begin, finish in sorted(intervals):
        if merged and begin <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], finish)
        else:
            merged.append([begin, finish])

    window_start, window_end = (datetime.fromisoformat(text) for text in params["window"])
    min_gap = timedelta(minutes=params.get("min_gap_minutes", 0))
    free, cursor = [], window_start
    for begin, finish in merged:
        if begin - cursor >= min_gap and begin > cursor:
            free.append([stamp(cursor), stamp(min(begin, window_end))])
        cursor = max(cursor, finish)
    if window_end - cursor >= min_gap and window_end > cursor:
        free.append([stamp(cursor), stamp(window_end)])
    busy = sum((finish - begin for begin, finish in merged), timedelta())
    return {
        "merged": [[stamp(begin), stamp(finish)] for begin, finish in merged],
        "free": free,
        "busy_minutes": int(busy.total_seconds() // 60),
    }
