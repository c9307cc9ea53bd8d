"""Partition counting with a module-level memo table declared global (never rebound)."""

NAME = "memo_global"
DESCRIPTION = "Counts the integer partitions of n (the ways to write n as a sum of positive integers)."
PARAMS = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 300}}, "required": ["n"]}
EXAMPLES = [
    {"params": {"n": 5}, "result": {"partitions": 7}},
    {"params": {"n": 100}, "result": {"partitions": 190569292}},
]

_memo = {}


def partitions(n: int, largest: int) -> int:
    global _memo
    if n == 0:
        return 1
    if n < 0 or largest == 0:
        return 0
    key = (n, largest)
    if key not in _memo:
        _memo[key] = partitions(n - largest, largest) + partitions(n, largest - 1)
    return _memo[key]


def run(params):
    n = params["n"]
    table = [[0] * (n + 1) for _ in range(n + 1)]
    for total in range(n + 1):
        for big in range(n + 1):
            if total == 0:
                table[total][big] = 1
            elif big == 0:
                table[total][big] = 0
            else:
                table[total][big] = table[total][big - 1] + (table[total - big][big] if total >= big else 0)
    return {"partitions": table[n][n]}
