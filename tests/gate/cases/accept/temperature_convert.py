"""Converts temperatures between Celsius, Fahrenheit and Kelvin."""

NAME = "temperature_convert"
DESCRIPTION = "Converts a temperature between Celsius (C), Fahrenheit (F) and Kelvin (K)."
PARAMS = {
    "type": "object",
    "properties": {
        "value": {"type": "number"},
        "from_scale": {"enum": ["C", "F", "K"]},
        "to_scale": {"enum": ["C", "F", "K"]},
    },
    "required": ["value", "from_scale", "to_scale"],
}
EXAMPLES = [
    {"params": {"value": 100, "from_scale": "C", "to_scale": "F"}, "result": {"value": 212.0}},
    {"params": {"value": -40, "from_scale": "F", "to_scale": "C"}, "result": {"value": -40.0}},
    {"params": {"value": -5, "from_scale": "K", "to_scale": "C"}, "result": {"error": "below absolute zero"}},
]

ABSOLUTE_ZERO_C = -273.15


def to_celsius(value: float, scale: str) -> float:
    if scale == "F":
        return (value - 32) * 5 / 9
    if scale == "K":
        return value + ABSOLUTE_ZERO_C
    return value


def from_celsius(value: float, scale: str) -> float:
    if scale == "F":
        return value * 9 / 5 + 32
    if scale == "K":
        return value - ABSOLUTE_ZERO_C
    return value


def run(params):
    celsius = to_celsius(params["value"], params["from_scale"])
    if celsius < ABSOLUTE_ZERO_C - 1e-9:
        return {"error": "below absolute zero"}
    return {"value": round(from_celsius(celsius, params["to_scale"]), 2)}
