"""Maps numeric scores to letter grades with bisect and summarises the class."""
import bisect
import statistics
from collections import Counter

NAME = "grade_scores"
DESCRIPTION = "Assigns letter grades to scores using grade boundaries and returns the grade distribution and class average."
PARAMS = {
    "type": "object",
    "properties": {
        "scores": {"type": "object", "additionalProperties": {"type": "number", "minimum": 0, "maximum": 100}},
        "boundaries": {
            "type": "array",
            "items": {"type": "number"},
            "description": "ascending lower bounds for D, C, B, A",
            "default": [60, 70, 80, 90],
        },
    },
    "required": ["scores"],
}
EXAMPLES = [
    {
        "params": {"scores": {"ana": 93, "ben": 59.5, "cai": 80, "dee": 79.9, "eli": 90}},
        "result": {
            "grades": {"ana": "A", "ben": "F", "cai": "B", "dee": "C", "eli": "A"},
            "distribution": {"A": 2, "B": 1, "C": 1, "D": 0, "F": 1},
            "average": 80.48,
        },
    },
    {
        "params": {"scores": {}},
        "result": {"grades": {}, "distribution": {"A": 0, "B": 0, "C": 0, "D": 0, "F": 0}, "average": None},
    },
]

LETTERS = "FDCBA"


def run(params):
    boundaries = sorted(params.get("boundaries", [60, 70, 80, 90]))
    scores: dict[str, float] = params["scores"]
    grades = {student: LETTERS[bisect.bisect_right(boundaries, score)] for student, score in scores.items()}
    counts = Counter(grades.values())
    distribution = {letter: counts.get(letter, 0) for letter in reversed(LETTERS)}
    average = round(statistics.fmean(scores.values()), 2) if scores else None
    return {"grades": grades, "distribution": distribution, "average": average}
