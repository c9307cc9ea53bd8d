"""Converts between integers and Roman numerals with a module-level lookup table."""

NAME = "roman_convert"
DESCRIPTION = "Converts an integer (1-3999) to a Roman numeral, or a Roman numeral back to an integer."
PARAMS = {
    "type": "object",
    "properties": {
        "number": {"type": "integer", "minimum": 1, "maximum": 3999},
        "roman": {"type": "string", "maxLength": 30},
    },
}
EXAMPLES = [
    {"params": {"number": 1994}, "result": {"roman": "MCMXCIV"}},
    {"params": {"roman": "mmxxiv"}, "result": {"number": 2024}},
    {"params": {"roman": "IIII"}, "result": {"error": "not a canonical Roman numeral: 'IIII'"}},
    {"params": {}, "result": {"error": "give number or roman"}},
]

numerals = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]
values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def _to_roman(number: int) -> str:
    out = []
    for value, letters in numerals:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def _from_roman(text: str) -> int:
    total = 0
    for index, letter in enumerate(text):
        value = values[letter]
        if index + 1 < len(text) and values[text[index + 1]] > value:
            total -= value
        else:
            total += value
    return total


def run(params):
    if "number" in params:
        return {"roman": _to_roman(params["number"])}
    if "roman" in params:
        text = params["roman"].strip().upper()
        if not text or any(ch not in values for ch in text):
            return {"error": f"not a Roman numeral: {params['roman']!r}"}
        number = _from_roman(text)
        if not 1 <= number <= 3999 or _to_roman(number) != text:
            return {"error": f"not a canonical Roman numeral: {params['roman']!r}"}
        return {"number": number}
    return {"error": "give number or roman"}
