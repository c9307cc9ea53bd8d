"""Parses CSV text whose rows end in CRLF, as spreadsheets export it."""
import csv

NAME = "csv_line_endings"
DESCRIPTION = "Parses CSV text (CRLF or LF line endings) into rows and reports which ending it used."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [
    {"params": {"text": "name,age\r\nAda,36\r\nAlan,41\r\n"},
     "result": {"rows": [["name", "age"], ["Ada", "36"], ["Alan", "41"]], "ending": "\r\n"}},
    {"params": {"text": "a\tb\n1\t2\n"}, "result": {"rows": [["a\tb"], ["1\t2"]], "ending": "\n"}},
]


def run(params):
    text = params["text"]
    ending = "\r\n" if "\r\n" in text else "\n"
    rows = list(csv.reader(text.splitlines()))
    return {"rows": rows, "ending": ending}
