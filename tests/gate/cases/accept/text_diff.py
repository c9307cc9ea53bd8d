"""Line diff of two texts."""
import difflib

NAME = "text_diff"
DESCRIPTION = "Unified diff of two texts plus a similarity ratio and counts of added and removed lines."
PARAMS = {
    "type": "object",
    "properties": {
        "before": {"type": "string"},
        "after": {"type": "string"},
        "context": {"type": "integer", "minimum": 0, "default": 1},
    },
    "required": ["before", "after"],
}
EXAMPLES = [
    {
        "params": {"before": "a\nb\nc\n", "after": "a\nB\nc\nd\n"},
        "result": {
            "diff": "--- before\n+++ after\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d",
            "added": 2,
            "removed": 1,
            "similarity": 0.571,
        },
    },
    {"params": {"before": "same", "after": "same"}, "result": {"diff": "", "added": 0, "removed": 0, "similarity": 1.0}},
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
