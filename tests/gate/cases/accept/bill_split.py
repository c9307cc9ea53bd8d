"""Splits a bill with tip among people so the cents add up exactly."""
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation

NAME = "bill_split"
DESCRIPTION = "Splits a bill plus tip between people by weight, distributing leftover cents so the shares add up exactly to the total."
PARAMS = {
    "type": "object",
    "properties": {
        "amount": {"type": "string", "description": "bill before tip, e.g. '87.50'"},
        "tip_percent": {"type": "string", "default": "0"},
        "people": {
            "type": "object",
            "description": "name -> weight (1 for an equal share)",
            "additionalProperties": {"type": "number", "exclusiveMinimum": 0},
            "minProperties": 1,
        },
    },
    "required": ["amount", "people"],
}
EXAMPLES = [
    {
        "params": {"amount": "100.00", "tip_percent": "0", "people": {"ann": 1, "bo": 1, "cy": 1}},
        "result": {"total": "100.00", "tip": "0.00", "shares": {"ann": "33.34", "bo": "33.33", "cy": "33.33"}},
    },
    {
        "params": {"amount": "87.50", "tip_percent": "15", "people": {"ann": 2, "bo": 1}},
        "result": {"total": "100.63", "tip": "13.13", "shares": {"ann": "67.09", "bo": "33.54"}},
    },
    {"params": {"amount": "12,50", "people": {"ann": 1}}, "result": {"error": "amount and tip_percent must be decimal numbers like 12.50"}},
]

CENT = "0.01"


def split(total: Decimal, weights: dict[str, float]) -> dict[str, Decimal]:
    cent = Decimal(CENT)
    weight_sum = sum(Decimal(str(weight)) for weight in weights.values())
    shares = {
        name: (total * Decimal(str(weight)) / weight_sum).quantize(cent, rounding=ROUND_DOWN)
        for name, weight in weights.items()
    }
    leftover = int((total - sum(shares.values())) / cent)
    # the biggest weights (then the first names) get the leftover cents
    order = sorted(weights, key=lambda name: -weights[name])
    for name in order[:leftover]:
        shares[name] += cent
    return shares


def run(params):
    try:
        amount = Decimal(params["amount"])
        tip_rate = Decimal(params.get("tip_percent", "0")) / 100
    except InvalidOperation:
        return {"error": "amount and tip_percent must be decimal numbers like 12.50"}
    tip = (amount * tip_rate).quantize(Decimal(CENT), rounding=ROUND_HALF_UP)
    total = amount + tip
    shares = split(total, params["people"])
    return {
        "total": str(total.quantize(Decimal(CENT))),
        "tip": str(tip),
        "shares": {name: str(share) for name, share in shares.items()},
    }
