"""Sums numbers, refusing booleans, with one-argument type() comparisons."""

NAME = "strict_sum"
DESCRIPTION = "Sums a list of numbers; booleans and strings are reported instead of being added."
PARAMS = {"type": "object", "properties": {"values": {"type": "array"}}, "required": ["values"]}
EXAMPLES = [
    {"params": {"values": [1, 2, 3.5]}, "result": {"sum": 6.5, "rejected": []}},
    {"params": {"values": [1, True, "2"]}, "result": {"sum": 1, "rejected": [1, 2]}},
]


def run(params):
    total = 0
    rejected = []
    for index, value in enumerate(params["values"]):
        if type(value) not in (int, float):
            rejected.append(index)
            continue
        total += value
    return {"sum": total, "rejected": rejected}
