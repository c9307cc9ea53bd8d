"""Exact age from a birth date."""
import calendar
from datetime import date
from typing import Optional

NAME = "age_calculator"
DESCRIPTION = "Exact age in years, months and days on a given date (today by default), and days to the next birthday."
PARAMS = {
    "type": "object",
    "properties": {
        "birth_date": {"type": "string", "format": "date"},
        "on": {"type": "string", "format": "date"},
    },
    "required": ["birth_date"],
}
EXAMPLES = [
    {
        "params": {"birth_date": "1990-08-25", "on": "2024-03-10"},
        "result": {"years": 33, "months": 6, "days": 14, "days_to_birthday": 168},
    },
    {
        "params": {"birth_date": "2000-02-29", "on": "2023-02-28"},
        "result": {"years": 22, "months": 11, "days": 30, "days_to_birthday": 1},
    },
]


def birthday_in(year: int, born: date) -> date:
    # People born on 29 February celebrate on 1 March in common years.
    if born.month == 2 and born.day == 29 and not calendar.isleap(year):
        return date(year, 3, 1)
    return date(year, born.month, born.day)


def run(params):
    born = date.fromisoformat(params["birth_date"])
    on_text: Optional[str] = params.get("on")
    today = date.fromisoformat(on_text) if on_text else date.today()
    years = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
    months = (today.month - born.month - (today.day < born.day)) % 12
    anchor_month = today.month - 1 if today.day < born.day else today.month
    anchor_year = today.year if anchor_month >= 1 else today.year - 1
    anchor_month = anchor_month if anchor_month >= 1 else 12
    anchor_day = min(born.day, calendar.monthrange(anchor_year, anchor_month)[1])
    days = (today - date(anchor_year, anchor_month, anchor_day)).days
    upcoming = birthday_in(today.year, born)
    if upcoming < today:
        upcoming = birthday_in(today.year + 1, born)
    return {"years": years, "months": months, "days": days, "days_to_birthday": (upcoming - today).days}
