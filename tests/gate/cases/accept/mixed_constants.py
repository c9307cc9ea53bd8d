"""Shipping cost with mixed-case module constants and tables."""

NAME = "mixed_constants"
DESCRIPTION = "Computes a parcel's shipping cost from its weight and zone, with a free-shipping threshold."
PARAMS = {
    "type": "object",
    "properties": {
        "weight_kg": {"type": "number", "minimum": 0},
        "zone": {"enum": ["domestic", "europe", "world"]},
        "order_total": {"type": "number", "minimum": 0, "default": 0},
    },
    "required": ["weight_kg", "zone"],
}
EXAMPLES = [
    {"params": {"weight_kg": 2.5, "zone": "europe"}, "result": {"cost": 14.5, "free": False}},
    {"params": {"weight_kg": 1, "zone": "domestic", "order_total": 80}, "result": {"cost": 0, "free": True}},
]

base_rates = {"domestic": 4.0, "europe": 9.5, "world": 18.0}
per_kg = {"domestic": 1.0, "europe": 2.0, "world": 5.0}
freeShippingThreshold = 50
_rounding = 2


def run(params):
    if params["zone"] == "domestic" and params.get("order_total", 0) >= freeShippingThreshold:
        return {"cost": 0, "free": True}
    zone = params["zone"]
    cost = base_rates[zone] + per_kg[zone] * params["weight_kg"]
    return {"cost": round(cost, _rounding), "free": False}
