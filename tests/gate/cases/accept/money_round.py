"""Splits and rounds money amounts exactly with Decimal."""
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation

NAME = "money_round"
DESCRIPTION = "Rounds a money amount to cents (half-up or banker's rounding) and splits it fairly into N shares."
PARAMS = {
    "type": "object",
    "properties": {
        "amount": {"type": "string", "description": "decimal amount as text, e.g. '10.005'"},
        "shares": {"type": "integer", "minimum": 1, "default": 1},
        "bankers": {"type": "boolean", "default": False},
    },
    "required": ["amount"],
}
EXAMPLES = [
    {"params": {"amount": "10.005"}, "result": {"rounded": "10.01", "shares": ["10.01"]}},
    {"params": {"amount": "10.005", "bankers": True}, "result": {"rounded": "10.00", "shares": ["10.00"]}},
    {"params": {"amount": "100", "shares": 3}, "result": {"rounded": "100.00", "shares": ["33.34", "33.33", "33.33"]}},
    {"params": {"amount": "ten"}, "result": {"error": "amount is not a number: 'ten'"}},
]

CENT = "0.01"


def split(total: Decimal, shares: int) -> list[str]:
    cent = Decimal(CENT)
    base = (total / shares).quantize(cent, rounding="ROUND_DOWN")
    leftover = int((total - base * shares) / cent)
    return [str(base + cent if index < leftover else base) for index in range(shares)]


def run(params):
    try:
        amount = Decimal(params["amount"])
    except InvalidOperation:
        return {"error": f"amount is not a number: {params['amount']!r}"}
    mode = ROUND_HALF_EVEN if params.get("bankers") else ROUND_HALF_UP
    rounded = amount.quantize(Decimal(CENT), rounding=mode)
    return {"rounded": str(rounded), "shares": split(rounded, params.get("shares", 1))}
