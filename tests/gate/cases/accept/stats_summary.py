"""Descriptive statistics for a list of numbers."""
import statistics
from typing import Optional

NAME = "stats_summary"
DESCRIPTION = "Count, mean, median, mode, standard deviation, min, max and quartiles of a list of numbers."
PARAMS = {
    "type": "object",
    "properties": {
        "values": {"type": "array", "items": {"type": "number"}, "minItems": 1},
        "digits": {"type": "integer", "minimum": 0, "maximum": 10, "default": 3},
    },
    "required": ["values"],
}
EXAMPLES = [
    {
        "params": {"values": [2, 4, 4, 4, 5, 5, 7, 9]},
        "result": {
            "count": 8, "mean": 5.0, "median": 4.5, "mode": 4, "stdev": 2.138, "pstdev": 2.0,
            "min": 2, "max": 9, "quartiles": [4.0, 4.5, 6.5],
        },
    },
    {
        "params": {"values": [3]},
        "result": {"count": 1, "mean": 3.0, "median": 3, "mode": 3, "stdev": None, "pstdev": 0.0, "min": 3, "max": 3, "quartiles": None},
    },
]


def rounded(value: Optional[float], digits: int) -> Optional[float]:
    return None if value is None else round(value, digits)


def run(params):
    values = params["values"]
    digits = params.get("digits", 3)
    enough = len(values) >= 2
    return {
        "count": len(values),
        "mean": rounded(statistics.fmean(values), digits),
        "median": statistics.median(values),
        "mode": statistics.multimode(values)[0],
        "stdev": rounded(statistics.stdev(values), digits) if enough else None,
        "pstdev": rounded(statistics.pstdev(values), digits),
        "min": min(values),
        "max": max(values),
        "quartiles": [round(q, digits) for q in statistics.quantiles(values, n=4)] if enough else None,
    }
