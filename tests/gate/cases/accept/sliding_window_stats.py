"""Min, max and mean over a sliding window."""
from collections import deque
from statistics import fmean

NAME = "sliding_window_stats"
DESCRIPTION = "For each full window of a series, reports the minimum, maximum and mean (monotonic-queue min/max)."
PARAMS = {
    "type": "object",
    "properties": {
        "series": {"type": "array", "items": {"type": "number"}},
        "window": {"type": "integer", "minimum": 1},
    },
    "required": ["series", "window"],
}
EXAMPLES = [
    {
        "params": {"series": [4, 2, 12, 3, 8, 1], "window": 3},
        "result": {"windows": [
            {"start": 0, "min": 2, "max": 12, "mean": 6.0},
            {"start": 1, "min": 2, "max": 12, "mean": 5.667},
            {"start": 2, "min": 3, "max": 12, "mean": 7.667},
            {"start": 3, "min": 1, "max": 8, "mean": 4.0},
        ]},
    },
    {"params": {"series": [1, 2], "window": 5}, "result": {"windows": []}},
]


def extremes(series: list[float], window: int, *, largest: bool) -> list[float]:
    """Classic monotonic deque: O(n) min or max of every window."""
    keep: deque = deque()
    out = []
    for index, value in enumerate(series):
        while keep and (series[keep[-1]] <= value if largest else series[keep[-1]] >= value):
            keep.pop()
        keep.append(index)
        if keep[0] <= index - window:
            keep.popleft()
        if index >= window - 1:
            out.append(series[keep[0]])
    return out


def run(params):
    series, window = params["series"], params["window"]
    if len(series) < window:
        return {"windows": []}
    lows = extremes(series, window, largest=False)
    highs = extremes(series, window, largest=True)
    windows = []
    for start, (low, high) in enumerate(zip(lows, highs, strict=True)):
        windows.append({"start": start, "min": low, "max": high, "mean": round(fmean(series[start : start + window]), 3)})
    return {"windows": windows}
