"""Converts temperatures between Celsius, Fahrenheit and Kelvin."""

NAME = "temperature_convert"
DESCRIPTION = "Converts a temperature between Celsius (C), Fahrenheit (F) and Kelvin (K)."
PARAMS = {
    "type": "object",
    "properties": {
        "value": {"type": "number"},
        "from_unit": {"type": "string", "enum": ["C", "F", "K"]},
        "to_unit": {"type": "string", "enum": ["C", "F", "K"]},
    },
    "required": ["value", "from_unit", "to_unit"],
}
EXAMPLES = [
    {"params": {"value": 100, "from_unit": "C", "to_unit": "F"}, "result": {"value": 212.0}},
    {"params": {"value": 32, "from_unit": "F", "to_unit": "K"}, "result": {"value": 273.15}},
    {"params": {"value": 0, "from_unit": "K", "to_unit": "C"}, "result": {"value": -273.15}},
]


def to_celsius(value, unit):
    if unit == "C":
        return value
    if unit == "F":
        return (value - 32) * 5 / 9
    return value - 273.15


def from_celsius(value, unit):
    if unit == "C":
        return value
    if unit == "F":
        return value * 9 / 5 + 32
    return value + 273.15


def run(params):
    celsius = to_celsius(params["value"], params["from_unit"])
    return {"value": round(from_celsius(celsius, params["to_unit"]), 6)}
