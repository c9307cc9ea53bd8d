"""Helpers that take what they need as arguments, a while loop and a conditional answer."""


def clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


limit = clamp(inputs.get("limit", 3), 1, 10)
seen = []
n = 0
while n < limit:
    seen.append(n * n)
    n += 1
if seen:
    result = {"squares": seen}
else:
    result = {"squares": []}
