"""Flags outliers in a series with the interquartile-range rule or z-scores."""
import statistics

NAME = "outlier_detect"
DESCRIPTION = "Flags outliers in a list of numbers using Tukey's IQR fences or a z-score threshold."
PARAMS = {
    "type": "object",
    "properties": {
        "values": {"type": "array", "items": {"type": "number"}, "minItems": 4},
        "method": {"type": "string", "enum": ["iqr", "zscore"], "default": "iqr"},
        "k": {"type": "number", "exclusiveMinimum": 0, "default": 1.5, "description": "IQR multiplier or z threshold"},
    },
    "required": ["values"],
}
EXAMPLES = [
    {
        "params": {"values": [10, 12, 12, 13, 12, 11, 14, 13, 15, 10, 10, 100, -40]},
        "result": {"method": "iqr", "low": 5.5, "high": 17.5, "outliers": [{"index": 11, "value": 100}, {"index": 12, "value": -40}]},
    },
    {
        "params": {"values": [1, 2, 3, 4, 5, 6, 7, 8, 9, 50], "method": "zscore", "k": 2.5},
        "result": {"method": "zscore", "low": -24.8, "high": 43.8, "outliers": [{"index": 9, "value": 50}]},
    },
]


def fences(values: list[float], method: str, k: float) -> tuple[float, float]:
    if method == "zscore":
        center, spread = statistics.fmean(values), statistics.pstdev(values)
        return center - k * spread, center + k * spread
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    iqr = q3 - q1
    return q1 - k * iqr, q3 + k * iqr


def run(params):
    values = params["values"]
    method = params.get("method", "iqr")
    low, high = fences(values, method, params.get("k", 1.5))
    outliers = [{"index": i, "value": v} for i, v in enumerate(values) if v < low or v > high]
    return {"method": method, "low": round(low, 2), "high": round(high, 2), "outliers": outliers}
