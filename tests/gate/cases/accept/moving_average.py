"""Simple and exponential moving averages of a series."""
from collections import deque

NAME = "moving_average"
DESCRIPTION = "Simple moving average over a window, and an exponential moving average, of a numeric series."
PARAMS = {
    "type": "object",
    "properties": {
        "series": {"type": "array", "items": {"type": "number"}},
        "window": {"type": "integer", "minimum": 1, "default": 3},
        "alpha": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 0.5},
    },
    "required": ["series"],
}
EXAMPLES = [
    {
        "params": {"series": [1, 2, 3, 4, 5, 6], "window": 3},
        "result": {"sma": [2.0, 3.0, 4.0, 5.0], "ema": [1, 1.5, 2.25, 3.125, 4.062, 5.031]},
    },
    {"params": {"series": [], "window": 2}, "result": {"sma": [], "ema": []}},
]


def simple(series: list[float], window: int) -> list[float]:
    recent: deque = deque(maxlen=window)
    averages = []
    total = 0.0
    for value in series:
        if len(recent) == window:
            total -= recent[0]
        recent.append(value)
        total += value
        if len(recent) == window:
            averages.append(round(total / window, 3))
    return averages


def exponential(series: list[float], alpha: float) -> list[float]:
    averages: list[float] = []
    for value in series:
        averages.append(value if not averages else round(alpha * value + (1 - alpha) * averages[-1], 3))
    return averages


def run(params):
    series = params["series"]
    return {
        "sma": simple(series, params.get("window", 3)),
        "ema": exponential(series, params.get("alpha", 0.5)),
    }
