"""Totals an invoice with discounts and tax."""
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

NAME = "invoice_total"
DESCRIPTION = "Computes line totals, a percentage discount, tax and the grand total of an invoice, exactly to the cent."
PARAMS = {
    "type": "object",
    "properties": {
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "description": {"type": "string"},
                    "quantity": {"type": "number", "minimum": 0},
                    "unit_price": {"type": "string"},
                },
                "required": ["description", "quantity", "unit_price"],
            },
            "minItems": 1,
        },
        "discount_percent": {"type": "number", "minimum": 0, "maximum": 100, "default": 0},
        "tax_percent": {"type": "number", "minimum": 0, "default": 0},
    },
    "required": ["lines"],
}
EXAMPLES = [
    {
        "params": {
            "lines": [
                {"description": "Widget", "quantity": 3, "unit_price": "19.99"},
                {"description": "Gadget", "quantity": 1, "unit_price": "5.05"},
            ],
            "discount_percent": 10,
            "tax_percent": 20,
        },
        "result": {
            "lines": [{"description": "Widget", "total": "59.97"}, {"description": "Gadget", "total": "5.05"}],
            "subtotal": "65.02", "discount": "6.50", "tax": "11.70", "total": "70.22",
        },
    }
]


def cents(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def percent(amount: Decimal, rate: Any) -> Decimal:
    return cents(amount * Decimal(str(rate)) / 100)


def run(params):
    totals = []
    for line in params["lines"]:
        amount = cents(Decimal(str(line["quantity"])) * Decimal(line["unit_price"]))
        totals.append({"description": line["description"], "total": amount})
    subtotal = sum((line["total"] for line in totals), Decimal(0))
    discount = percent(subtotal, params.get("discount_percent", 0))
    tax = percent(subtotal - discount, params.get("tax_percent", 0))
    return {
        "lines": [{"description": line["description"], "total": str(line["total"])} for line in totals],
        "subtotal": str(subtotal),
        "discount": str(discount),
        "tax": str(tax),
        "total": str(subtotal - discount + tax),
    }
