"""Builds a fixed-rate loan amortization schedule with exact decimal money arithmetic."""
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

NAME = "loan_amortization"
DESCRIPTION = "Computes the monthly payment and the amortization schedule of a fixed-rate loan, rounded to cents."
PARAMS = {
    "type": "object",
    "properties": {
        "principal": {"type": "string", "description": "amount as a decimal string, e.g. '10000.00'"},
        "annual_rate_percent": {"type": "string", "description": "e.g. '6' for 6% a year"},
        "months": {"type": "integer", "minimum": 1, "maximum": 600},
        "show_rows": {"type": "integer", "minimum": 0, "default": 3},
    },
    "required": ["principal", "annual_rate_percent", "months"],
}
EXAMPLES = [
    {
        "params": {"principal": "1000.00", "annual_rate_percent": "12", "months": 3, "show_rows": 3},
        "result": {
            "payment": "340.02",
            "total_paid": "1020.07",
            "total_interest": "20.07",
            "schedule": [
                {"month": 1, "payment": "340.02", "interest": "10.00", "principal": "330.02", "balance": "669.98"},
                {"month": 2, "payment": "340.02", "interest": "6.70", "principal": "333.32", "balance": "336.66"},
                {"month": 3, "payment": "340.03", "interest": "3.37", "principal": "336.66", "balance": "0.00"},
            ],
        },
    },
    {
        "params": {"principal": "1200", "annual_rate_percent": "0", "months": 12, "show_rows": 1},
        "result": {
            "payment": "100.00",
            "total_paid": "1200.00",
            "total_interest": "0.00",
            "schedule": [{"month": 1, "payment": "100.00", "interest": "0.00", "principal": "100.00", "balance": "1100.00"}],
        },
    },
    {"params": {"principal": "lots", "annual_rate_percent": "5", "months": 12}, "result": {"error": "principal and rate must be decimal numbers"}},
]

CENT = "0.01"


def cents(value: Decimal) -> Decimal:
    return value.quantize(Decimal(CENT), rounding=ROUND_HALF_UP)


def monthly_payment(principal: Decimal, monthly_rate: Decimal, months: int) -> Decimal:
    if monthly_rate == 0:
        return cents(principal / months)
    growth = (1 + monthly_rate) ** months
    return cents(principal * monthly_rate * growth / (growth - 1))


def run(params: dict[str, Any]) -> dict[str, Any]:
    try:
        principal = Decimal(params["principal"])
        monthly_rate = Decimal(params["annual_rate_percent"]) / 100 / 12
    except InvalidOperation:
        return {"error": "principal and rate must be decimal numbers"}
    months = params["months"]
    payment = monthly_payment(principal, monthly_rate, months)
    balance, total_paid, rows = principal, Decimal(0), []
    for month in range(1, months + 1):
        interest = cents(balance * monthly_rate)
        this_payment = balance + interest if month == months else payment
        reduction = this_payment - interest
        balance -= reduction
        total_paid += this_payment
        rows.append({
            "month": month,
            "payment": str(this_payment),
            "interest": str(interest),
            "principal": str(reduction),
            "balance": str(cents(balance)),
        })
    return {
        "payment": str(payment),
        "total_paid": str(cents(total_paid)),
        "total_interest": str(cents(total_paid - principal)),
        "schedule": rows[: params.get("show_rows", 3)],
    }
