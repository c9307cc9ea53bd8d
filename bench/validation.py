"""How long one call's params validation can hold the host, before and after the bound.

The host validates every call's params with jsonschema-rs, which holds the GIL and cannot be
interrupted. Issue 9 (finding 4): `{"type": "number", "multipleOf": 5e-324}` in an array and
one 3.6 MB call held the host 7-8 s. Now the gate refuses costly keywords (DT514) and every
call is refused before validation when `params units x the schema's per-value cost` exceeds
100 ms. For schemas the gate accepts, each built to be as costly per value as it allows,
this prints the estimate and the measured time of the params check on the largest params
the bound lets through, next to a plain schema and to the unbounded validation of the
finding's schema, in the same run. Target: every measured worst case under 100 ms.

    .venv/bin/python bench/validation.py [--rounds N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import jsonschema_rs

from dyntools.errors import InvalidParams
from dyntools.gate.contract import NS_WALK_PER_UNIT, params_schema_problem, value_cost_ns
from dyntools.pipeline.toolmeta import _compiled, params_check


def array_schema(items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"a": {"type": "array", "items": items, **extra}}}


def fill(schema: dict[str, Any], make: Callable[[int], list[Any]]) -> dict[str, Any]:
    """The largest `{"a": make(n)}` the bound accepts (binary search on n)."""
    check = params_check(schema, "bench")
    low, high = 1, 1
    while True:
        try:
            check({"a": make(high)})
        except InvalidParams as exc:
            if "too large" in exc.message:
                break
        low, high = high, high * 2
        if high > 4_000_000:
            return {"a": make(low)}
    while high - low > max(1, low // 100):
        mid = (low + high) // 2
        try:
            check({"a": make(mid)})
            low = mid
        except InvalidParams as exc:
            if "too large" in exc.message:
                high = mid
            else:
                low = mid
    return {"a": make(low)}


CASES: list[tuple[str, dict[str, Any], Callable[[int], list[Any]]]] = [
    ("plain number array", array_schema({"type": "number"}), lambda n: [1.5] * n),
    ("multipleOf 0.01", array_schema({"multipleOf": 0.01}), lambda n: [1.5] * n),
    ("multipleOf 1e-9 (the bound)", array_schema({"multipleOf": 1e-9}), lambda n: [3e-9] * n),
    ("multipleOf 7 on floats", array_schema({"multipleOf": 7}), lambda n: [21.0] * n),
    ("allOf 63 minimum", array_schema({"allOf": [{"minimum": i} for i in range(63)]}),
     lambda n: [100] * n),
    ("anyOf 63 types, last matches",
     array_schema({"anyOf": [{"type": "string"}] * 62 + [{"type": "integer"}]}),
     lambda n: [7] * n),
    ("enum of 12 floats", array_schema({"enum": [i + 0.5 for i in range(12)]}),
     lambda n: [11.5] * n),
    ("dependentRequired 2,400 names",
     array_schema({"type": "object",
                   "dependentRequired": {f"k{i}": ["x"] for i in range(1200)}}),
     lambda n: [{}] * n),
    ("uniqueItems floats", {"type": "object", "properties": {
        "a": {"type": "array", "uniqueItems": True}}}, lambda n: [i + 0.5 for i in range(n)]),
    ("unevaluatedProperties, anyOf 20",
     array_schema({"anyOf": [{"properties": {f"k{i}": {}}} for i in range(20)],
                   "unevaluatedProperties": False}),
     lambda n: [{"k1": 1, "k2": 2}] * n),
    ("pattern on strings", array_schema({"type": "string", "pattern": "^[a-z0-9 ]*$"}),
     lambda n: ["abc def 123 " * 20] * max(1, n // 240)),
]


def timed(check: Callable[[Any], None], params: Any, rounds: int) -> float:
    best = float("inf")
    worst = 0.0
    for _ in range(rounds):
        start = time.perf_counter()
        with contextlib.suppress(InvalidParams):
            check(params)
        elapsed = time.perf_counter() - start
        best, worst = min(best, elapsed), max(worst, elapsed)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    finding = array_schema({"type": "number", "multipleOf": 5e-324})
    sample = {"a": [1e-300] * 2_000}
    raw = jsonschema_rs.validator_for(finding)
    start = time.perf_counter()
    raw.is_valid(sample)
    per_byte = (time.perf_counter() - start) / len(json.dumps(sample))
    print(f"before: multipleOf 5e-324, unbounded: {per_byte * 1e9:.0f} ns per params byte, "
          f"{per_byte * 3.6e6:.1f} s for one 3.6 MB call (host held, GIL taken)")
    print(f"after:  the gate refuses it: {params_schema_problem(finding)!s:.90}...")
    print()
    print(f"{'schema (accepted by the gate)':34} {'ns/value':>9} {'units':>9} "
          f"{'MB':>6} {'estimate':>9} {'measured':>9}")
    worst = 0.0
    for name, schema, make in CASES:
        assert params_schema_problem(schema) is None, (name, params_schema_problem(schema))
        per_value = value_cost_ns(schema)
        _, budget_units = _compiled(schema)
        params = fill(schema, make)
        size = len(json.dumps(params)) / 1e6
        measured = timed(params_check(schema, "bench"), params, args.rounds)
        worst = max(worst, measured)
        print(f"{name:34} {per_value:9,} {budget_units:9,} {size:6.2f} "
              f"{(per_value + NS_WALK_PER_UNIT) * budget_units / 1e6:7.0f}ms "
              f"{measured * 1000:7.1f}ms")
    print()
    print(f"worst measured params check: {worst * 1000:.1f} ms (target < 100 ms)")


if __name__ == "__main__":
    main()
