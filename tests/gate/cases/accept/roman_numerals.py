"""Converts between integers and Roman numerals."""
import re

NAME = "roman_numerals"
DESCRIPTION = "Converts an integer (1-3999) to a Roman numeral, or a Roman numeral back to an integer."
PARAMS = {
    "type": "object",
    "properties": {
        "number": {"type": "integer", "minimum": 1, "maximum": 3999},
        "roman": {"type": "string", "pattern": "^[IVXLCDMivxlcdm]+$"},
    },
    "oneOf": [{"required": ["number"]}, {"required": ["roman"]}],
}
EXAMPLES = [
    {"params": {"number": 1994}, "result": {"roman": "MCMXCIV"}},
    {"params": {"roman": "mmxxiv"}, "result": {"number": 2024}},
    {"params": {"roman": "IIII"}, "result": {"error": "IIII is not a canonical Roman numeral"}},
]

SYMBOLS = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]
CANONICAL = r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$"


def to_roman(number: int) -> str:
    parts = []
    for value, symbol in SYMBOLS:
        count, number = divmod(number, value)
        parts.append(symbol * count)
    return "".join(parts)


def from_roman(text: str) -> int:
    total, index = 0, 0
    for value, symbol in SYMBOLS:
        while text.startswith(symbol, index):
            total += value
            index += len(symbol)
    return total


def run(params):
    if "number" in params:
        return {"roman": to_roman(params["number"])}
    roman = params["roman"].upper()
    if not re.fullmatch(CANONICAL, roman):
        return {"error": f"{roman} is not a canonical Roman numeral"}
    return {"number": from_roman(roman)}
