"""Summarises the numeric columns of CSV text."""
import csv
import statistics
from typing import Any

NAME = "csv_column_stats"
DESCRIPTION = "Parses CSV text with a header row and returns count, min, max, mean and median for every numeric column."
PARAMS = {
    "type": "object",
    "properties": {
        "csv": {"type": "string", "description": "CSV text; the first row is the header"},
        "delimiter": {"type": "string", "minLength": 1, "maxLength": 1, "default": ","},
    },
    "required": ["csv"],
}
EXAMPLES = [
    {
        "params": {"csv": "city,population,area\nOslo,709037,454\nBergen,289330,465\n\"Trondheim, NO\",214565,342\n"},
        "result": {
            "rows": 3,
            "numeric": {
                "population": {"count": 3, "min": 214565, "max": 709037, "mean": 404310.67, "median": 289330},
                "area": {"count": 3, "min": 342, "max": 465, "mean": 420.33, "median": 454},
            },
            "text": ["city"],
        },
    },
    {
        "params": {"csv": "name;score\nann;9.5\nbob;\ncy;7", "delimiter": ";"},
        "result": {
            "rows": 3,
            "numeric": {"score": {"count": 2, "min": 7, "max": 9.5, "mean": 8.25, "median": 8.25}},
            "text": ["name"],
        },
    },
    {"params": {"csv": ""}, "result": {"error": "no header row"}},
]


def to_number(cell: str) -> float | int | None:
    cell = cell.strip()
    if not cell:
        return None
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        return float(cell)
    except ValueError:
        return None


def run(params: dict[str, Any]) -> dict[str, Any]:
    rows = list(csv.reader(params["csv"].splitlines(), delimiter=params.get("delimiter", ",")))
    if not rows:
        return {"error": "no header row"}
    header, body = rows[0], [row for row in rows[1:] if any(cell.strip() for cell in row)]
    numeric: dict[str, dict[str, Any]] = {}
    text: list[str] = []
    for index, column in enumerate(header):
        cells = [row[index] for row in body if index < len(row) and row[index].strip()]
        values = [to_number(cell) for cell in cells]
        if not values or any(value is None for value in values):
            text.append(column)
            continue
        numeric[column] = {
            "count": len(values),
            "min": min(values),
            "max": max(values),
            "mean": round(statistics.fmean(values), 2),
            "median": statistics.median(values),
        }
    return {"rows": len(body), "numeric": numeric, "text": text}
