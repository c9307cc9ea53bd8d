"""Converts between units of length, mass and volume."""
from typing import Dict

NAME = "unit_convert"
DESCRIPTION = "Converts a value between metric and imperial units of length, mass or volume."
PARAMS = {
    "type": "object",
    "properties": {
        "value": {"type": "number"},
        "from_unit": {"type": "string"},
        "to_unit": {"type": "string"},
    },
    "required": ["value", "from_unit", "to_unit"],
}
EXAMPLES = [
    {"params": {"value": 1, "from_unit": "mi", "to_unit": "km"}, "result": {"value": 1.609344, "kind": "length"}},
    {"params": {"value": 2, "from_unit": "kg", "to_unit": "lb"}, "result": {"value": 4.409245, "kind": "mass"}},
    {"params": {"value": 1, "from_unit": "kg", "to_unit": "m"}, "result": {"error": "cannot convert kg (mass) to m (length)"}},
]

# Factors to the base unit of each kind: metre, kilogram, litre.
FACTORS = {
    "length": {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "yd": 0.9144, "mi": 1609.344},
    "mass": {"g": 0.001, "kg": 1.0, "t": 1000.0, "oz": 0.028349523125, "lb": 0.45359237},
    "volume": {"ml": 0.001, "l": 1.0, "tsp": 0.00492892159375, "cup": 0.2365882365, "gal": 3.785411784},
}


def kind_of(unit: str) -> str | None:
    return next((kind for kind, table in FACTORS.items() if unit in table), None)


def run(params: Dict[str, object]) -> Dict[str, object]:
    source, target = params["from_unit"], params["to_unit"]
    source_kind, target_kind = kind_of(source), kind_of(target)
    if source_kind is None or target_kind is None:
        unknown = source if source_kind is None else target
        return {"error": f"unknown unit {unknown}"}
    if source_kind != target_kind:
        return {"error": f"cannot convert {source} ({source_kind}) to {target} ({target_kind})"}
    table = FACTORS[source_kind]
    value = params["value"] * table[source] / table[target]
    return {"value": round(value, 6), "kind": source_kind}
