"""Converts CSV text into a list of JSON objects."""
import csv

NAME = "csv_to_json"
DESCRIPTION = "Parses CSV text with a header row into a list of records, converting numbers."
PARAMS = {
    "type": "object",
    "properties": {
        "csv_text": {"type": "string"},
        "delimiter": {"type": "string", "minLength": 1, "maxLength": 1, "default": ","},
        "convert_numbers": {"type": "boolean", "default": True},
    },
    "required": ["csv_text"],
}
EXAMPLES = [
    {
        "params": {"csv_text": "name,age\nAda,36\nAlan,41\n"},
        "result": {"rows": [{"name": "Ada", "age": 36}, {"name": "Alan", "age": 41}], "count": 2},
    },
    {
        "params": {"csv_text": "a;b\n1.5;x", "delimiter": ";"},
        "result": {"rows": [{"a": 1.5, "b": "x"}], "count": 1},
    },
]


def convert(value: str) -> int | float | str:
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            continue
    return value


def run(params):
    reader = csv.DictReader(params["csv_text"].splitlines(), delimiter=params.get("delimiter", ","))
    convert_numbers = params.get("convert_numbers", True)
    rows = []
    for record in reader:
        if convert_numbers:
            record = {key: convert(value) for key, value in record.items()}
        rows.append(dict(record))
    return {"rows": rows, "count": len(rows)}
