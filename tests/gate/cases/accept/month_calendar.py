"""A month as a grid of weeks."""
import calendar

NAME = "month_calendar"
DESCRIPTION = "Returns a month as weeks of day numbers (0 for padding), with the month name and leap-year flag."
PARAMS = {
    "type": "object",
    "properties": {
        "year": {"type": "integer", "minimum": 1, "maximum": 9999},
        "month": {"type": "integer", "minimum": 1, "maximum": 12},
        "first_weekday": {"enum": ["monday", "sunday"], "default": "monday"},
    },
    "required": ["year", "month"],
}
EXAMPLES = [
    {
        "params": {"year": 2024, "month": 2},
        "result": {
            "name": "February", "days": 29, "leap_year": True,
            "header": ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"],
            "weeks": [[0, 0, 0, 1, 2, 3, 4], [5, 6, 7, 8, 9, 10, 11], [12, 13, 14, 15, 16, 17, 18], [19, 20, 21, 22, 23, 24, 25], [26, 27, 28, 29, 0, 0, 0]],
        },
    },
    {
        "params": {"year": 2023, "month": 4, "first_weekday": "sunday"},
        "result": {
            "name": "April", "days": 30, "leap_year": False,
            "header": ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"],
            "weeks": [[0, 0, 0, 0, 0, 0, 1], [2, 3, 4, 5, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15], [16, 17, 18, 19, 20, 21, 22], [23, 24, 25, 26, 27, 28, 29], [30, 0, 0, 0, 0, 0, 0]],
        },
    },
]

DAY_NAMES = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"]


def run(params):
    first = 6 if params.get("first_weekday", "monday") == "sunday" else 0
    # A Calendar instance carries its own first weekday; the module-wide setting stays untouched.
    grid = calendar.Calendar(firstweekday=first).monthdayscalendar(params["year"], params["month"])
    return {
        "name": calendar.month_name[params["month"]],
        "days": calendar.monthrange(params["year"], params["month"])[1],
        "leap_year": calendar.isleap(params["year"]),
        "header": DAY_NAMES[first:] + DAY_NAMES[:first],
        "weeks": grid,
    }
