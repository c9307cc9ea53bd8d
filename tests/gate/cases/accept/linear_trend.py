"""Fits a straight line to (x, y) points and forecasts future values."""
import statistics
from typing import Any

NAME = "linear_trend"
DESCRIPTION = "Fits a least-squares line to paired x/y values, reports slope, intercept and correlation, and forecasts y for new x values."
PARAMS = {
    "type": "object",
    "properties": {
        "x": {"type": "array", "items": {"type": "number"}, "minItems": 2},
        "y": {"type": "array", "items": {"type": "number"}, "minItems": 2},
        "forecast": {"type": "array", "items": {"type": "number"}, "default": []},
    },
    "required": ["x", "y"],
}
EXAMPLES = [
    {
        "params": {"x": [1, 2, 3, 4, 5], "y": [2.1, 3.9, 6.2, 7.8, 10.1], "forecast": [6, 10]},
        "result": {"slope": 1.99, "intercept": 0.05, "r": 0.9987, "forecast": {"6": 11.99, "10": 19.95}},
    },
    {"params": {"x": [1, 2, 3], "y": [1, 2]}, "result": {"error": "x and y must have the same length"}},
    {"params": {"x": [3, 3, 3], "y": [1, 2, 3]}, "result": {"error": "x values must not all be equal"}},
]

DIGITS = 4


def run(params: dict[str, Any]) -> dict[str, Any]:
    xs: list[float] = params["x"]
    ys: list[float] = params["y"]
    if len(xs) != len(ys):
        return {"error": "x and y must have the same length"}
    try:
        slope, intercept = statistics.linear_regression(xs, ys)
        r = statistics.correlation(xs, ys)
    except statistics.StatisticsError:
        return {"error": "x values must not all be equal"}
    forecast = {f"{x:g}": round(slope * x + intercept, 2) for x in params.get("forecast", [])}
    return {"slope": round(slope, DIGITS), "intercept": round(intercept, DIGITS), "r": round(r, DIGITS), "forecast": forecast}
