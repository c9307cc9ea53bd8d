"""Summarises a list of file paths by extension and folder."""
from collections import Counter

NAME = "file_extension_stats"
DESCRIPTION = "Counts file paths by extension and by top-level folder, and lists the largest files when sizes are given."
PARAMS = {
    "type": "object",
    "properties": {
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "size": {"type": "integer", "minimum": 0}},
                "required": ["path"],
            },
        },
        "largest": {"type": "integer", "minimum": 0, "default": 2},
    },
    "required": ["files"],
}
EXAMPLES = [
    {
        "params": {"files": [
            {"path": "src/app.py", "size": 1200}, {"path": "src/util.PY", "size": 300},
            {"path": "docs/readme.md", "size": 5000}, {"path": "Makefile"}, {"path": "./src/.env", "size": 10},
        ]},
        "result": {
            "by_extension": {"py": 2, "md": 1, "(none)": 2},
            "by_folder": {"src": 3, "docs": 1, "(root)": 1},
            "largest": [["docs/readme.md", 5000], ["src/app.py", 1200]],
            "total_size": 6510,
        },
    }
]


def extension(path: str) -> str:
    *_, filename = path.split("/")
    stem, dot, ext = filename.rpartition(".")
    # A leading dot (".env") marks a hidden file, not an extension.
    return ext.lower() if dot and stem else "(none)"


def folder(path: str) -> str:
    first, *rest = path.removeprefix("./").split("/")
    return first if rest else "(root)"


def run(params):
    files = params["files"]
    by_extension: Counter = Counter()
    by_folder: Counter = Counter()
    for item in files:
        by_extension[extension(item["path"])] += 1
        by_folder[folder(item["path"])] += 1
    sized = [(f["path"], f["size"]) for f in files if "size" in f]
    largest = sorted(sized, key=lambda pair: pair[1], reverse=True)[: params.get("largest", 2)]
    return {
        "by_extension": dict(by_extension.most_common()),
        "by_folder": dict(by_folder.most_common()),
        "largest": [list(pair) for pair in largest],
        "total_size": sum(size for _, size in sized),
    }
