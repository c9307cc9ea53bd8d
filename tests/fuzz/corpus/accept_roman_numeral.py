"""Converts between integers and Roman numerals."""

NAME = "roman_numeral"
DESCRIPTION = (
    "Converts an integer from 1 to 3999 to a Roman numeral (give number), or a Roman numeral "
    "back to an integer (give roman)."
)
PARAMS = {
    "type": "object",
    "properties": {
        "number": {"type": "integer", "minimum": 1, "maximum": 3999},
        "roman": {"type": "string", "pattern": "^[MDCLXVImdclxvi]+$"},
    },
}
EXAMPLES = [
    {"params": {"number": 1994}, "result": {"roman": "MCMXCIV", "number": 1994}},
    {"params": {"number": 4}, "result": {"roman": "IV", "number": 4}},
    {"params": {"roman": "mmxxiv"}, "result": {"roman": "MMXXIV", "number": 2024}},
]

NUMERALS = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]


def to_roman(number):
    if not 1 <= number <= 3999:
        raise ValueError(f"{number} is outside 1..3999")
    parts = []
    for value, numeral in NUMERALS:
        count, number = divmod(number, value)
        parts.append(numeral * count)
    return "".join(parts)


def from_roman(roman):
    text = roman.upper()
    total = 0
    position = 0
    for value, numeral in NUMERALS:
        while text.startswith(numeral, position):
            total += value
            position += len(numeral)
    if position != len(text) or not 1 <= total <= 3999 or to_roman(total) != text:
        raise ValueError(f"{roman!r} is not a canonical Roman numeral")
    return total


def run(params):
    if "number" in params:
        number = params["number"]
        return {"roman": to_roman(number), "number": number}
    if "roman" in params:
        number = from_roman(params["roman"])
        return {"roman": to_roman(number), "number": number}
    raise ValueError("give either number or roman")
