"""Splits an arithmetic or config-like expression into typed tokens with a regex scanner."""
import re
from typing import Any

NAME = "regex_tokenizer"
DESCRIPTION = "Tokenizes an expression into numbers, identifiers, strings, operators and parentheses, reporting the first bad character."
PARAMS = {
    "type": "object",
    "properties": {"source": {"type": "string", "maxLength": 10000}},
    "required": ["source"],
}
EXAMPLES = [
    {
        "params": {"source": "total = price * 1.2 + tax(\"EU\")"},
        "result": {
            "tokens": [
                ["IDENT", "total"], ["OP", "="], ["IDENT", "price"], ["OP", "*"], ["NUMBER", "1.2"],
                ["OP", "+"], ["IDENT", "tax"], ["LPAREN", "("], ["STRING", "\"EU\""], ["RPAREN", ")"],
            ],
            "count": 10,
        },
    },
    {"params": {"source": "a >= 10 # note"}, "result": {"tokens": [["IDENT", "a"], ["OP", ">="], ["NUMBER", "10"]], "count": 3}},
    {"params": {"source": "x = 3 $ 4"}, "result": {"error": "unexpected character '$' at column 7"}},
]

TOKEN_SPEC = [
    ["NUMBER", r"\d+(?:\.\d+)?"],
    ["STRING", r"\"(?:[^\"\\]|\\.)*\""],
    ["IDENT", r"[A-Za-z_][A-Za-z0-9_]*"],
    ["OP", r"==|!=|<=|>=|[+\-*/%<>=]"],
    ["LPAREN", r"\("],
    ["RPAREN", r"\)"],
    ["COMMENT", r"#[^\n]*"],
    ["SKIP", r"\s+"],
    ["MISMATCH", r"."],
]


def tokenize(source: str) -> list[list[str]]:
    pattern = "|".join(f"(?P<{kind}>{regex})" for kind, regex in TOKEN_SPEC)
    tokens: list[list[str]] = []
    for match in re.finditer(pattern, source):
        kind = match.lastgroup
        if kind in ("SKIP", "COMMENT"):
            continue
        if kind == "MISMATCH":
            raise ValueError(f"unexpected character {match.group()!r} at column {match.start() + 1}")
        tokens.append([kind, match.group()])
    return tokens


def run(params: dict[str, Any]) -> dict[str, Any]:
    try:
        tokens = tokenize(params["source"])
    except ValueError as exc:
        return {"error": str(exc)}
    return {"tokens": tokens, "count": len(tokens)}
