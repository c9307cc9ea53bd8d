"""How long the static gate takes, next to `ast.parse` of the same source in the same run.

Target (DESIGN.md §9): the whole gate, every rule on, at most 2x `ast.parse`. Samples of the
gate, `ast.parse`, the gate with a cold PARAMS-schema cache and RestrictedPython's
`compile_restricted` are interleaved in one loop (the order rotates every round), so load on
a shared machine hits all of them alike. Prints median and p99 per source and the ratios.

    .venv/bin/python bench/gate.py [--rounds N] [--profile]
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import gc
import pstats
import statistics
import sys
import textwrap
import time
from collections.abc import Callable

from RestrictedPython import compile_restricted

from dyntools.gate import check_source, load_policy
from dyntools.gate.contract import _compile_schema

POLICY = load_policy()

TOOL_60 = '''\
"""Summarises a list of numbers: count, mean, median, spread and a histogram."""
import math
import statistics
from collections import Counter

NAME = "number_summary"
DESCRIPTION = "Summarises a list of numbers: count, mean, median, spread and buckets."
PARAMS = {
    "type": "object",
    "properties": {
        "values": {"type": "array", "items": {"type": "number"}, "minItems": 1},
        "buckets": {"type": "integer", "minimum": 1, "maximum": 50},
        "precision": {"type": "integer", "minimum": 0, "maximum": 10},
    },
    "required": ["values"],
}
EXAMPLES = [
    {"params": {"values": [1, 2, 3, 4]}, "result": {"count": 4, "mean": 2.5}},
    {"params": {"values": [5], "buckets": 1}, "result": {"count": 1, "mean": 5.0}},
]


def rounded(value: float, precision: int) -> float:
    if math.isnan(value) or math.isinf(value):
        raise ValueError("values must be finite")
    return round(value, precision)


def histogram(values: list[float], buckets: int) -> list[dict[str, float]]:
    low, high = min(values), max(values)
    width = (high - low) / buckets or 1.0
    counts = Counter(min(int((v - low) / width), buckets - 1) for v in values)
    return [
        {"from": low + i * width, "to": low + (i + 1) * width, "count": counts.get(i, 0)}
        for i in range(buckets)
    ]


def spread(values: list[float]) -> dict[str, float]:
    if len(values) < 2:
        return {"stdev": 0.0, "range": 0.0}
    return {"stdev": statistics.stdev(values), "range": max(values) - min(values)}


def run(params):
    values = [float(v) for v in params["values"]]
    precision = params.get("precision", 3)
    buckets = params.get("buckets", 5)
    summary = {
        "count": len(values),
        "mean": rounded(statistics.fmean(values), precision),
        "median": rounded(statistics.median(values), precision),
    }
    for key, value in spread(values).items():
        summary[key] = rounded(value, precision)
    summary["histogram"] = histogram(values, buckets)
    summary["total"] = rounded(math.fsum(values), precision)
    return summary
'''

HELPERS = (
    '''\
def normalise_{n}(text: str, keep_case: bool = False) -> str:
    cleaned = unicodedata.normalize("NFKC", text).strip()
    if not keep_case:
        cleaned = cleaned.lower()
    return re.sub(r"\\s+", " ", cleaned)
''',
    '''\
def tokens_{n}(text):
    words = re.findall(r"[A-Za-z0-9']+", text)
    counts = Counter(word.lower() for word in words if len(word) > 1)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [{{"word": word, "count": count}} for word, count in ranked[:10]]
''',
    '''\
def parse_date_{n}(value, default=None):
    try:
        return datetime.date.fromisoformat(value)
    except (TypeError, ValueError) as error:
        if default is not None:
            return default
        raise ValueError(f"not an ISO date: {{value!r}}") from error
''',
    '''\
def distance_{n}(a, b):
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            cost = 0 if char_a == char_b else 1
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost))
        previous = current
    return previous[-1]
''',
    '''\
def table_{n}(rows, columns=None):
    columns = columns or sorted({{key for row in rows for key in row}})
    widths = {{c: max([len(str(c))] + [len(str(r.get(c, ""))) for r in rows]) for c in columns}}
    header = " | ".join(str(c).ljust(widths[c]) for c in columns)
    lines = [header, "-+-".join("-" * widths[c] for c in columns)]
    while rows:
        row, rows = rows[0], rows[1:]
        lines.append(" | ".join(str(row.get(c, "")).ljust(widths[c]) for c in columns))
    return "\\n".join(lines)
''',
)


def thousand_line_tool(target_lines: int = 1000) -> str:
    head = textwrap.dedent('''\
        """A large but realistic tool: many small text, date and table helpers."""
        import datetime
        import re
        import unicodedata
        from collections import Counter

        NAME = "text_workbench"
        DESCRIPTION = "Normalises, tokenises and tabulates text with many small helpers."
        PARAMS = {
            "type": "object",
            "properties": {"text": {"type": "string"}, "other": {"type": "string"}},
            "required": ["text"],
        }
        EXAMPLES = [{"params": {"text": "a b"}, "result": {"tokens": []}}]

    ''')
    tail = textwrap.dedent('''\

        def run(params):
            text = normalise_0(params["text"])
            other = params.get("other", "")
            return {
                "tokens": tokens_1(text),
                "distance": distance_3(text, other),
                "table": table_4([{"text": text, "other": other}]),
            }
    ''')
    parts = [head]
    lines = head.count("\n") + tail.count("\n")
    n = 0
    while lines < target_lines:
        helper = "\n" + HELPERS[n % len(HELPERS)].format(n=n)
        parts.append(helper)
        lines += helper.count("\n")
        n += 1
    parts.append(tail)
    return "".join(parts)


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def cold_gate(data: bytes) -> None:
    _compile_schema.cache_clear()
    check_source(data, POLICY)


def measure(data: bytes, rounds: int) -> dict[str, list[float]]:
    text = data.decode("utf-8")
    contenders: dict[str, Callable[[], object]] = {
        "ast.parse": lambda: ast.parse(data),
        "gate": lambda: check_source(data, POLICY),
        "gate, cold schema cache": lambda: cold_gate(data),
        "compile_restricted": lambda: compile_restricted(text, "<tool>", "exec"),
    }
    names = list(contenders)
    for name in names:  # warm up: imports, the policy cache, the schema cache
        for _ in range(3):
            contenders[name]()
    samples: dict[str, list[float]] = {name: [] for name in names}
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a collection landing in one contender's sample is noise, not cost
    try:
        for round_ in range(rounds):
            shift = round_ % len(names)
            for name in names[shift:] + names[:shift]:
                run = contenders[name]
                start = time.perf_counter_ns()
                run()
                samples[name].append((time.perf_counter_ns() - start) / 1000)
            if round_ % 50 == 49:
                gc.collect()
    finally:
        if gc_was_enabled:
            gc.enable()
    return samples


def report(label: str, source: str, rounds: int) -> float:
    data = source.encode("utf-8")
    verdict = check_source(data, POLICY)
    assert verdict.accepted, [str(f) for f in verdict.findings]
    samples = measure(data, rounds)
    base_median = statistics.median(samples["ast.parse"])
    base_p99 = percentile(samples["ast.parse"], 0.99)
    lines = source.count("\n")
    print(f"\n{label}: {lines} lines, {len(data)} bytes, {rounds} interleaved rounds")
    heads = ("median µs", "p99 µs", "x parse (median)", "x parse (p99)")
    print(f"  {'':26} {heads[0]:>10} {heads[1]:>10} {heads[2]:>17} {heads[3]:>14}")
    for name, values in samples.items():
        median = statistics.median(values)
        p99 = percentile(values, 0.99)
        print(
            f"  {name:26} {median:10.1f} {p99:10.1f} "
            f"{median / base_median:16.2f}x {p99 / base_p99:13.2f}x"
        )
    return statistics.median(samples["gate"]) / base_median


# Rejected files under the size limit that are expensive for the gate rather than the parser:
# many findings on one long non-ASCII line (a column per finding), and non-ASCII text
# anywhere (the identifier scan tokenizes the whole file in pure Python).
ADVERSARIAL = {
    "45k non-ASCII names, one line": "x = [" + ", ".join(["\u00e9"] * 45000) + "]\n",
    "30k p._a after a non-ASCII char": "x = ['\u00e9', " + ", ".join(["p._a"] * 30000) + "]\n",
    "12k lines with a non-ASCII comment": "".join(
        f"x{i} = p._a  # \u00e9\n" for i in range(12000)
    ),
}


def adversarial(rounds: int) -> None:
    print(f"\nadversarial inputs (rejected; median of {rounds} interleaved rounds):")
    for label, source in ADVERSARIAL.items():
        data = source.encode("utf-8")
        assert len(data) <= POLICY.limits.max_bytes
        parse: list[float] = []
        gate: list[float] = []
        for _ in range(rounds):
            start = time.perf_counter()
            ast.parse(data)
            parse.append(time.perf_counter() - start)
            start = time.perf_counter()
            check_source(data, POLICY)
            gate.append(time.perf_counter() - start)
        p, g = statistics.median(parse), statistics.median(gate)
        print(f"  {label:36} {len(data):7} bytes  parse {p * 1000:8.1f} ms  "
              f"gate {g * 1000:9.1f} ms  {g / p:6.1f}x")


def profile(source: str, repeat: int) -> None:
    data = source.encode("utf-8")
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(repeat):
        check_source(data, POLICY)
    profiler.disable()
    print(f"\ncProfile of {repeat} gate runs ({source.count(chr(10))} lines), by own time:")
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("tottime").print_stats(18)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=0, help="rounds per source (default: auto)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of the gate")
    parser.add_argument(
        "--no-adversarial", action="store_true", help="skip the slow adversarial inputs"
    )
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}; target: gate <= 2.00x ast.parse (median)")
    small = report("60-line tool", TOOL_60, args.rounds or 2000)
    large_source = thousand_line_tool()
    large = report("1,000-line tool", large_source, args.rounds or 200)
    verdict = "within" if max(small, large) <= 2.0 else "OVER"
    print(f"\ngate / ast.parse (median): {small:.2f}x and {large:.2f}x -> {verdict} the 2x target")
    if not args.no_adversarial:
        adversarial(3)
    if args.profile:
        profile(TOOL_60, 2000)
        profile(large_source, 100)


if __name__ == "__main__":
    main()
