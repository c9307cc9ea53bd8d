"""Body-mass index with WHO categories."""

NAME = "bmi_calculator"
DESCRIPTION = "Computes body-mass index from weight and height (metric or imperial) and its WHO category."
PARAMS = {
    "type": "object",
    "properties": {
        "weight": {"type": "number", "exclusiveMinimum": 0},
        "height": {"type": "number", "exclusiveMinimum": 0},
        "units": {"enum": ["metric", "imperial"], "default": "metric"},
    },
    "required": ["weight", "height"],
}
EXAMPLES = [
    {"params": {"weight": 70, "height": 175}, "result": {"bmi": 22.9, "category": "normal"}},
    {"params": {"weight": 200, "height": 70, "units": "imperial"}, "result": {"bmi": 28.7, "category": "overweight"}},
]

CATEGORIES = [(18.5, "underweight"), (25.0, "normal"), (30.0, "overweight")]


def category(bmi: float) -> str:
    return next((label for limit, label in CATEGORIES if bmi < limit), "obese")


def run(params):
    if params.get("units", "metric") == "imperial":
        kilograms = params["weight"] * 0.45359237
        metres = params["height"] * 0.0254
    else:
        kilograms = params["weight"]
        metres = params["height"] / 100
    bmi = kilograms / metres**2
    return {"bmi": round(bmi, 1), "category": category(bmi)}
