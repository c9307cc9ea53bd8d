"""Buckets numbers into equal-width bins and draws a text histogram."""
import math

NAME = "histogram_bins"
DESCRIPTION = "Groups numbers into equal-width bins and returns the counts with a simple text bar chart."
PARAMS = {
    "type": "object",
    "properties": {
        "values": {"type": "array", "items": {"type": "number"}, "minItems": 1},
        "bins": {"type": "integer", "minimum": 1, "maximum": 100, "default": 5},
        "bar_width": {"type": "integer", "minimum": 1, "maximum": 80, "default": 10},
    },
    "required": ["values"],
}
EXAMPLES = [
    {
        "params": {"values": [1, 2, 2, 3, 3, 3, 4, 9, 10], "bins": 3, "bar_width": 8},
        "result": {
            "bins": [
                {"low": 1.0, "high": 4.0, "count": 6},
                {"low": 4.0, "high": 7.0, "count": 1},
                {"low": 7.0, "high": 10.0, "count": 2},
            ],
            "chart": "[1, 4)   ######## 6\n[4, 7)   # 1\n[7, 10]  ### 2",
        },
    },
    {
        "params": {"values": [5, 5]},
        "result": {"bins": [{"low": 5.0, "high": 5.0, "count": 2}], "chart": "[5, 5]  ########## 2"},
    },
]


def run(params):
    values: list[float] = params["values"]
    bins, bar_width = params.get("bins", 5), params.get("bar_width", 10)
    low, high = min(values), max(values)
    if math.isclose(low, high):
        edges, counts = [(float(low), float(high))], [len(values)]
    else:
        width = (high - low) / bins
        edges = [(low + i * width, low + (i + 1) * width) for i in range(bins)]
        counts = [0] * bins
        for value in values:
            counts[min(int((value - low) / width), bins - 1)] += 1
    peak = max(counts)
    labels = []
    for index, (start, end) in enumerate(edges):
        closing = "]" if index == len(edges) - 1 else ")"
        labels.append(f"[{start:g}, {end:g}{closing}")
    pad = max(len(label) for label in labels) + 2
    lines = [
        f"{label.ljust(pad)}{'#' * max(1, round(count / peak * bar_width)) if count else ''} {count}"
        for label, count in zip(labels, counts)
    ]
    return {
        "bins": [{"low": round(s, 6), "high": round(e, 6), "count": c} for (s, e), c in zip(edges, counts)],
        "chart": "\n".join(lines),
    }
