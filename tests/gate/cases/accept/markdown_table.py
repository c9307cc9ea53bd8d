"""Renders records as a Markdown table."""
from typing import Any, List

NAME = "markdown_table"
DESCRIPTION = "Renders a list of records as a GitHub-flavoured Markdown table with aligned columns."
PARAMS = {
    "type": "object",
    "properties": {
        "rows": {"type": "array", "items": {"type": "object"}},
        "columns": {"type": "array", "items": {"type": "string"}},
        "align_numbers_right": {"type": "boolean", "default": True},
    },
    "required": ["rows"],
}
EXAMPLES = [
    {
        "params": {"rows": [{"item": "pen", "qty": 3}, {"item": "notebook", "qty": 12}]},
        "result": {
            "markdown": "| item     | qty |\n| -------- | --: |\n| pen      |   3 |\n| notebook |  12 |"
        },
    },
    {"params": {"rows": []}, "result": {"markdown": ""}},
]


def cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def run(params):
    rows: List[dict] = params["rows"]
    if not rows:
        return {"markdown": ""}
    columns = params.get("columns") or list(dict.fromkeys(key for row in rows for key in row))
    body = [[cell(row.get(column)) for column in columns] for row in rows]
    widths = [max(3, len(column), *(len(line[i]) for line in body)) for i, column in enumerate(columns)]
    numeric = [
        params.get("align_numbers_right", True)
        and all(isinstance(row.get(column), int | float) for row in rows)
        for column in columns
    ]

    def render(values: list[str]) -> str:
        padded = [v.rjust(w) if right else v.ljust(w) for v, w, right in zip(values, widths, numeric)]
        return "| " + " | ".join(padded) + " |"

    rule = "| " + " | ".join("-" * (w - 1) + ":" if right else "-" * w for w, right in zip(widths, numeric)) + " |"
    return {"markdown": "\n".join([render(columns), rule, *(render(line) for line in body)])}
