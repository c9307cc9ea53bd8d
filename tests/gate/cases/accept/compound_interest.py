"""Compound interest and loan payments with exact decimal arithmetic."""
import decimal
from decimal import Decimal

NAME = "compound_interest"
DESCRIPTION = "Future value of a deposit with compound interest, and the monthly payment of an amortised loan."
PARAMS = {
    "type": "object",
    "properties": {
        "principal": {"type": "number", "minimum": 0},
        "annual_rate_percent": {"type": "number", "minimum": 0},
        "years": {"type": "integer", "minimum": 1, "maximum": 100},
        "compounds_per_year": {"type": "integer", "minimum": 1, "default": 12},
    },
    "required": ["principal", "annual_rate_percent", "years"],
}
EXAMPLES = [
    {
        "params": {"principal": 10000, "annual_rate_percent": 5, "years": 10},
        "result": {"future_value": "16470.09", "interest": "6470.09", "monthly_payment": "106.07"},
    },
    {
        "params": {"principal": 1200, "annual_rate_percent": 0, "years": 1, "compounds_per_year": 1},
        "result": {"future_value": "1200.00", "interest": "0.00", "monthly_payment": "100.00"},
    },
]


def money(value: Decimal) -> str:
    return str(value.quantize(Decimal("0.01"), rounding=decimal.ROUND_HALF_UP))


def monthly_payment(principal: Decimal, annual_rate: Decimal, years: int) -> Decimal:
    months = years * 12
    if annual_rate == 0:
        return principal / months
    rate = annual_rate / 12
    return principal * rate / (1 - (1 + rate) ** -months)


def run(params):
    # A local context keeps the extra precision to this calculation only.
    with decimal.localcontext(prec=40):
        principal = Decimal(str(params["principal"]))
        rate = Decimal(str(params["annual_rate_percent"])) / 100
        periods = params.get("compounds_per_year", 12)
        future = principal * (1 + rate / periods) ** (periods * params["years"])
        payment = monthly_payment(principal, rate, params["years"])
        return {
            "future_value": money(future),
            "interest": money(future - principal),
            "monthly_payment": money(payment),
        }
