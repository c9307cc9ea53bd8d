"""Percentile rank of scores within a distribution."""
from bisect import bisect_left, bisect_right

NAME = "percentile_rank"
DESCRIPTION = "Percentile rank of each score within a reference distribution, and a grade band from cut-offs."
PARAMS = {
    "type": "object",
    "properties": {
        "distribution": {"type": "array", "items": {"type": "number"}, "minItems": 1},
        "scores": {"type": "array", "items": {"type": "number"}},
        "cutoffs": {"type": "array", "items": {"type": "number"}, "default": [60, 70, 80, 90]},
        "grades": {"type": "array", "items": {"type": "string"}, "default": ["F", "D", "C", "B", "A"]},
    },
    "required": ["distribution", "scores"],
}
EXAMPLES = [
    {
        "params": {"distribution": [55, 62, 70, 70, 81, 90, 95, 99], "scores": [70, 99, 40]},
        "result": {"results": [
            {"score": 70, "percentile": 37.5, "grade": "C"},
            {"score": 99, "percentile": 93.8, "grade": "A"},
            {"score": 40, "percentile": 0.0, "grade": "F"},
        ]},
    }
]


def percentile(ordered: list[float], score: float) -> float:
    below = bisect_left(ordered, score)
    equal = bisect_right(ordered, score) - below
    return round(100 * (below + 0.5 * equal) / len(ordered), 1)


def run(params):
    ordered = sorted(params["distribution"])
    cutoffs = params.get("cutoffs", [60, 70, 80, 90])
    grades = params.get("grades", ["F", "D", "C", "B", "A"])
    results = [
        {"score": s, "percentile": percentile(ordered, s), "grade": grades[bisect_right(cutoffs, s)]}
        for s in params["scores"]
    ]
    return {"results": results}
