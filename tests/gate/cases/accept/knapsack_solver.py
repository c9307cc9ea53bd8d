"""Solves the 0/1 knapsack problem by dynamic programming."""
from typing import Any

NAME = "knapsack_solver"
DESCRIPTION = "Picks the subset of items with the highest total value whose total weight fits the capacity (0/1 knapsack)."
PARAMS = {
    "type": "object",
    "properties": {
        "capacity": {"type": "integer", "minimum": 0, "maximum": 10000},
        "items": {
            "type": "array",
            "maxItems": 200,
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "weight": {"type": "integer", "minimum": 0},
                    "value": {"type": "number"},
                },
                "required": ["name", "weight", "value"],
            },
        },
    },
    "required": ["capacity", "items"],
}
EXAMPLES = [
    {
        "params": {
            "capacity": 50,
            "items": [
                {"name": "map", "weight": 10, "value": 60},
                {"name": "tent", "weight": 20, "value": 100},
                {"name": "stove", "weight": 30, "value": 120},
            ],
        },
        "result": {"value": 220, "weight": 50, "chosen": ["tent", "stove"]},
    },
    {
        "params": {"capacity": 5, "items": [{"name": "anvil", "weight": 9, "value": 500}]},
        "result": {"value": 0, "weight": 0, "chosen": []},
    },
]


def run(params: dict[str, Any]) -> dict[str, Any]:
    capacity: int = params["capacity"]
    items: list[dict[str, Any]] = params["items"]
    # table[i][w]: best value using the first i items within weight w
    table = [[0] * (capacity + 1) for _ in range(len(items) + 1)]
    for i, item in enumerate(items, start=1):
        weight, value = item["weight"], item["value"]
        for w in range(capacity + 1):
            table[i][w] = table[i - 1][w]
            if weight <= w and table[i - 1][w - weight] + value > table[i][w]:
                table[i][w] = table[i - 1][w - weight] + value

    chosen: list[str] = []
    w = capacity
    for i in range(len(items), 0, -1):
        if table[i][w] != table[i - 1][w]:
            chosen.append(items[i - 1]["name"])
            w -= items[i - 1]["weight"]
    chosen.reverse()
    total_weight = sum(item["weight"] for item in items if item["name"] in chosen)
    return {"value": table[len(items)][capacity], "weight": total_weight, "chosen": chosen}
