"""Compares semantic versions."""
import re
from functools import cmp_to_key

NAME = "semver_compare"
DESCRIPTION = "Compares two SemVer 2.0 versions (pre-release aware) or sorts a list of versions."
PARAMS = {
    "type": "object",
    "properties": {
        "a": {"type": "string"},
        "b": {"type": "string"},
        "sort": {"type": "array", "items": {"type": "string"}},
    },
}
EXAMPLES = [
    {"params": {"a": "1.2.10", "b": "1.2.9"}, "result": {"comparison": 1, "newer": "1.2.10"}},
    {"params": {"a": "1.0.0-alpha", "b": "1.0.0"}, "result": {"comparison": -1, "newer": "1.0.0"}},
    {
        "params": {"sort": ["1.0.0", "1.0.0-rc.1", "0.9.12", "1.0.0-alpha.beta", "1.0.0-alpha.1"]},
        "result": {"sorted": ["0.9.12", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-rc.1", "1.0.0"]},
    },
    {"params": {"a": "1.2", "b": "1.2.0"}, "result": {"error": "not a semantic version: '1.2'"}},
]

SEMVER = r"v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?"


def parse(text: str) -> tuple[tuple[int, int, int], list[str]]:
    found = re.fullmatch(SEMVER, text.strip())
    if not found:
        raise ValueError(f"not a semantic version: {text!r}")
    major, minor, patch, pre = found.groups()
    return (int(major), int(minor), int(patch)), pre.split(".") if pre else []


def compare_identifiers(left: list[str], right: list[str]) -> int:
    if not left or not right:
        return (not left) - (not right)  # a release sorts after its pre-releases
    for x, y in zip(left, right):
        if x == y:
            continue
        if x.isdigit() and y.isdigit():
            return -1 if int(x) < int(y) else 1
        if x.isdigit() != y.isdigit():
            return -1 if x.isdigit() else 1
        return -1 if x < y else 1
    return (len(left) > len(right)) - (len(left) < len(right))


def compare(a: str, b: str) -> int:
    (core_a, pre_a), (core_b, pre_b) = parse(a), parse(b)
    if core_a != core_b:
        return -1 if core_a < core_b else 1
    return compare_identifiers(pre_a, pre_b)


def run(params):
    try:
        if "sort" in params:
            return {"sorted": sorted(params["sort"], key=cmp_to_key(compare))}
        result = compare(params["a"], params["b"])
    except ValueError as exc:
        return {"error": str(exc)}
    except KeyError:
        return {"error": "give a and b, or sort"}
    return {"comparison": result, "newer": params["a"] if result >= 0 else params["b"]}
