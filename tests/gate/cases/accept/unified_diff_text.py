"""Compares two texts line by line and returns a unified diff with change counts."""
import difflib

NAME = "unified_diff_text"
DESCRIPTION = "Compares two texts line by line and returns a unified diff plus counts of added and removed lines and a similarity ratio."
PARAMS = {
    "type": "object",
    "properties": {
        "before": {"type": "string"},
        "after": {"type": "string"},
        "context": {"type": "integer", "minimum": 0, "maximum": 20, "default": 1},
    },
    "required": ["before", "after"],
}
EXAMPLES = [
    {
        "params": {"before": "one\ntwo\nthree\nfour", "after": "one\n2\nthree\nfour\nfive"},
        "result": {
            "diff": "--- before\n+++ after\n@@ -1,4 +1,5 @@\n one\n-two\n+2\n three\n four\n+five",
            "added": 2,
            "removed": 1,
            "similarity": 0.667,
        },
    },
    {
        "params": {"before": "same\n", "after": "same\n"},
        "result": {"diff": "", "added": 0, "removed": 0, "similarity": 1.0},
    },
]


def run(params):
    before = params["before"].splitlines()
    after = params["after"].splitlines()
    lines = list(
        difflib.unified_diff(before, after, "before", "after", n=params.get("context", 1), lineterm="")
    )
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    ratio = difflib.SequenceMatcher(None, before, after).ratio()
    return {"diff": "\n".join(lines), "added": added, "removed": removed, "similarity": round(ratio, 3)}
