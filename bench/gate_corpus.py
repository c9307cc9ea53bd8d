"""A deterministic corpus of realistic tool files for bench/gate.py (not a benchmark itself).

    files = realistic_corpus(count=2000, seed=15)   # [(file name, source text)], all accepted

Each file looks like what a model writes for the gate: a docstring, three to seven typical
imports (some inside functions), NAME, DESCRIPTION, a PARAMS schema of two to six properties
(strings with lengths, enums and linear-time patterns, bounded numbers, arrays, maps), three
to eight EXAMPLES whose params satisfy PARAMS and whose results are nested JSON, a few
constants, helpers and run(params). About half the files hold non-ASCII text in strings,
comments, examples and the description (accented Latin, Greek, Cyrillic, CJK, symbols),
as tools for people's text do. Lengths spread from 40 to 300 lines.

`python bench/gate_corpus.py DIR [--count N]` writes the corpus to DIR; run with no
arguments (as `make bench` does) it prints a summary of the corpus instead.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

WORDS = (
    "text", "title", "amount", "price", "rate", "city", "name", "label", "query", "total",
    "items", "values", "limit", "offset", "unit", "currency", "country", "zone", "date",
    "count", "score", "weight", "height", "width", "lines", "words", "tags", "mode", "level",
)
NON_ASCII = (
    "café", "naïve", "Grüße", "smörgåsbord", "façade", "jalapeño", "Zürich", "Kraków",
    "São Paulo", "東京", "Москва", "Ελλάδα", "€ 12,50", "→", "—", "✓ done", "½ cup", "20 °C",
    "№ 7", "Ærø", "İstanbul", "Đà Nẵng", "naïveté", "crème brûlée", "½ ¼ ¾", "±0.5",
)
ASCII_TEXT = (
    "Hello World", "the quick brown fox", "2024-03-15", "alpha beta gamma", "Oslo", "Bergen",
    "a, b, c", "north-east", "ok", "sample input", "lorem ipsum dolor", "X-42",
)
# Patterns that run in linear time, with values that match them.
PATTERNS = (
    ("^[a-z]+$", ("abc", "hello", "zeta")),
    ("^[A-Z]{3}$", ("EUR", "USD", "NOK")),
    ("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", ("2024-03-15", "1999-12-31")),
    ("^[a-z0-9_-]{1,32}$", ("user_1", "build-7", "x")),
)
ENUMS = (
    ("metric", "imperial"), ("asc", "desc"), ("upper", "lower", "title"),
    ("json", "csv", "text"), ("day", "week", "month", "year"),
)

# Helper functions: (source with {n}, modules it needs as import lines).
HELPERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ('''\
def normalise_{n}(text: str, keep_case: bool = False) -> str:
    # NFKC folds compatibility forms (ﬁ → fi, ² → 2) before comparing
    cleaned = unicodedata.normalize("NFKC", text).strip()
    if not keep_case:
        cleaned = cleaned.lower()
    return re.sub(r"\\s+", " ", cleaned)
''', ("import re", "import unicodedata")),
    ('''\
def tokens_{n}(text):
    words = re.findall(r"[\\w']+", text)
    counts = Counter(word.lower() for word in words if len(word) > 1)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [{{"word": word, "count": count}} for word, count in ranked[:10]]
''', ("import re", "from collections import Counter")),
    ('''\
def parse_date_{n}(value, default=None):
    """Parses an ISO date (2024-03-15); other spellings raise ValueError."""
    try:
        return datetime.date.fromisoformat(value)
    except (TypeError, ValueError) as error:
        if default is not None:
            return default
        raise ValueError(f"not an ISO date: {{value!r}}") from error
''', ("import datetime",)),
    ('''\
def distance_{n}(a, b):
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            cost = 0 if char_a == char_b else 1
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost))
        previous = current
    return previous[-1]
''', ()),
    ('''\
def table_{n}(rows, columns=None):
    columns = columns or sorted({{key for row in rows for key in row}})
    widths = {{c: max([len(str(c))] + [len(str(r.get(c, ""))) for r in rows]) for c in columns}}
    header = " │ ".join(str(c).ljust(widths[c]) for c in columns)
    lines = [header, "─┼─".join("─" * widths[c] for c in columns)]
    while rows:
        row, rows = rows[0], rows[1:]
        lines.append(" │ ".join(str(row.get(c, "")).ljust(widths[c]) for c in columns))
    return "\\n".join(lines)
''', ()),
    ('''\
def transliterate_{n}(text: str) -> str:
    """German and Nordic letters to ASCII: Grüße → Gruesse, Ærø → AEroe."""
    for source, target in REPLACEMENTS_{n}.items():
        text = text.replace(source, target)
    folded = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in folded if not unicodedata.combining(ch))
''', ("import unicodedata",)),
    ('''\
def summary_{n}(values: list[float], precision: int = 2) -> dict[str, float]:
    if not values:
        return {{"count": 0, "mean": 0.0, "median": 0.0}}
    mean = statistics.fmean(values)
    spread = statistics.pstdev(values) if len(values) > 1 else 0.0
    return {{
        "count": len(values),
        "mean": round(mean, precision),
        "median": round(statistics.median(values), precision),
        "stdev": round(spread, precision),
        "range": round(max(values) - min(values), precision),
    }}
''', ("import statistics",)),
    ('''\
def money_{n}(amount, currency="EUR", places=2):
    quantum = decimal.Decimal(1).scaleb(-places)
    value = decimal.Decimal(str(amount)).quantize(quantum, rounding=decimal.ROUND_HALF_UP)
    symbol = SYMBOLS_{n}.get(currency, currency + " ")
    return f"{{symbol}}{{value:,}}"  # e.g. € 1,234.50
''', ("import decimal",)),
    ('''\
def group_{n}(records, key):
    groups = defaultdict(list)
    for record in records:
        groups[str(record.get(key, "—"))].append(record)
    return {{name: len(members) for name, members in sorted(groups.items())}}
''', ("from collections import defaultdict",)),
    ('''\
def digest_{n}(text: str, algorithm: str = "sha256") -> str:
    if algorithm not in ("sha256", "sha1", "md5"):
        raise ValueError(f"unknown algorithm {{algorithm}}")
    data = text.encode("utf-8")
    return hashlib.new(algorithm, data).hexdigest()
''', ("import hashlib",)),
    ('''\
def encode_{n}(text: str, urlsafe: bool = False) -> str:
    raw = text.encode("utf-8")
    encoded = base64.urlsafe_b64encode(raw) if urlsafe else base64.b64encode(raw)
    return encoded.decode("ascii")
''', ("import base64",)),
    ('''\
def query_{n}(url: str, extra: dict[str, str]) -> str:
    parts = urllib.parse.urlsplit(url)
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    pairs.extend(sorted(extra.items()))
    query = urllib.parse.urlencode(pairs)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))
''', ("import urllib.parse",)),
    ('''\
def wrap_{n}(text: str, width: int = 60) -> list[str]:
    # textwrap counts code points, so "東京" is two columns wide here, not four
    paragraphs = [p.strip() for p in text.split("\\n\\n") if p.strip()]
    lines: list[str] = []
    for paragraph in paragraphs:
        lines.extend(textwrap.wrap(paragraph, width=width) or [""])
        lines.append("")
    return lines[:-1] if lines else []
''', ("import textwrap",)),
    ('''\
def windows_{n}(values, size=3):
    if size < 1:
        raise ValueError("size must be at least 1")
    window = deque(maxlen=size)
    averages = []
    for value in values:
        window.append(value)
        if len(window) == size:
            averages.append(round(sum(window) / size, 3))
    return averages
''', ("from collections import deque",)),
    ('''\
def pairs_{n}(items):
    seen = set()
    result = []
    for left, right in itertools.combinations(sorted(items), 2):
        key = (left, right)
        if key in seen:
            continue
        seen.add(key)
        result.append({{"left": left, "right": right, "gap": abs(right - left)}})
    return result[:20]
''', ("import itertools",)),
    ('''\
def convert_{n}(value: float, unit: str, system: str = "metric") -> dict[str, float | str]:
    factor = UNITS_{n}.get(unit)
    if factor is None:
        raise ValueError(f"unknown unit {{unit!r}}; known: {{', '.join(sorted(UNITS_{n}))}}")
    base = value * factor
    if system == "imperial":
        return {{"value": round(base / 1609.344, 4), "unit": "mi"}}
    return {{"value": round(base / 1000, 4), "unit": "km"}}
''', ()),
    ('''\
def parse_json_{n}(text: str) -> dict:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        return {{"error": f"line {{error.lineno}}: {{error.msg}}"}}
    if not isinstance(value, dict):
        return {{"error": "expected an object"}}
    return {{"keys": sorted(value), "size": len(json.dumps(value, ensure_ascii=False))}}
''', ("import json",)),
    ('''\
def geometry_{n}(points):
    import math

    total = 0.0
    for (x1, y1), (x2, y2) in zip(points, points[1:]):
        total += math.hypot(x2 - x1, y2 - y1)
    angle = math.degrees(math.atan2(points[-1][1] - points[0][1], points[-1][0] - points[0][0]))
    return {{"length": round(total, 3), "bearing": round(angle % 360, 1)}}
''', ()),
    ('''\
def classify_{n}(score: int) -> str:
    """Maps a score to a grade: 90+ → A, 80+ → B, … below 50 → F."""
    if score < 0 or score > 100:
        raise ValueError("score must be within 0..100")
    for threshold, grade in GRADES_{n}:
        if score >= threshold:
            return grade
    return "F"
''', ()),
    ('''\
def ranges_{n}(numbers):
    ordered = sorted(set(numbers))
    spans = []
    for number in ordered:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return [f"{{a}}–{{b}}" if a != b else str(a) for a, b in spans]
''', ()),  # noqa: RUF001 (realistic text holds an en dash)
)

CONSTANTS: tuple[str, ...] = (
    'REPLACEMENTS_{n} = {{"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Æ": "AE", "ø": "oe"}}\n',
    'SYMBOLS_{n} = {{"EUR": "€ ", "GBP": "£", "JPY": "¥", "USD": "$"}}\n',
    'UNITS_{n} = {{"m": 1.0, "km": 1000.0, "mi": 1609.344, "ft": 0.3048, "yd": 0.9144}}\n',
    'GRADES_{n} = [(90, "A"), (80, "B"), (70, "C"), (60, "D"), (50, "E")]\n',
)
# Which helper needs which constant.
NEEDS_CONSTANT = {"transliterate": 0, "money": 1, "convert": 2, "classify": 3}

EXTRA_IMPORTS = (
    "import math", "import json", "import re", "from typing import Any", "import string",
    "from collections import Counter", "import heapq", "import functools", "import difflib",
    "from fractions import Fraction", "import html", "import calendar", "import zlib",
)


def _schema_property(rng: random.Random, non_ascii: bool) -> tuple[dict[str, object], object]:
    """A property schema and a function-free recipe for values (a list to pick from)."""
    kind = rng.choice(("string", "string", "pattern", "enum", "integer", "number", "boolean",
                       "array", "map"))
    if kind == "string":
        schema: dict[str, object] = {"type": "string", "maxLength": rng.choice((64, 200, 4000))}
        if rng.random() < 0.5:
            schema["description"] = rng.choice(("free text", "a title, e.g. “Grüße aus Köln”",
                                                "what to look for", "text in any language"))
        return schema, list(ASCII_TEXT + NON_ASCII) if non_ascii else list(ASCII_TEXT)
    if kind == "pattern":
        pattern, values = rng.choice(PATTERNS)
        return {"type": "string", "pattern": pattern}, list(values)
    if kind == "enum":
        choices = rng.choice(ENUMS)
        return {"type": "string", "enum": list(choices)}, list(choices)
    if kind == "integer":
        low = rng.choice((0, 1))
        high = rng.choice((10, 100, 1000))
        return {"type": "integer", "minimum": low, "maximum": high}, list(range(low, high + 1, 7))
    if kind == "number":
        return {"type": "number", "minimum": -1000, "maximum": 1000}, [0.5, 2.25, -7.0, 42, 3.14]
    if kind == "boolean":
        return {"type": "boolean"}, [True, False]
    if kind == "array":
        item = rng.choice(("number", "string"))
        values = ([[1, 2, 3], [2.5, 4.0], [7], [-1, 0, 1, 2]] if item == "number"
                  else [["a", "b"], ["café", "thé"], ["x"], ["東京", "大阪"]])
        return {"type": "array", "items": {"type": item}, "maxItems": 100}, values
    return ({"type": "object", "additionalProperties": {"type": "string"}},
            [{"de": "Grüße"}, {"en": "hello", "fr": "bonjour"}, {}])


def _result(rng: random.Random, non_ascii: bool) -> dict[str, object]:
    out: dict[str, object] = {}
    for key in rng.sample(("value", "items", "summary", "unit", "text", "count", "ok", "detail"),
                          rng.randint(1, 4)):
        pick = rng.random()
        if pick < 0.25:
            out[key] = rng.randint(0, 5000)
        elif pick < 0.45:
            out[key] = rng.choice(NON_ASCII if non_ascii else ASCII_TEXT)
        elif pick < 0.6:
            out[key] = [rng.choice(ASCII_TEXT) for _ in range(rng.randint(1, 4))]
        elif pick < 0.75:
            out[key] = {"mean": round(rng.uniform(0, 100), 2), "max": rng.randint(1, 99)}
        elif pick < 0.9:
            out[key] = rng.random() < 0.5
        else:
            out[key] = [{"word": w, "count": rng.randint(1, 9)} for w in rng.sample(WORDS, 3)]
    return out


def _ascii(text: str) -> str:
    """The text with every non-ASCII character spelled as an ASCII stand-in."""
    return "".join(ch if ch.isascii() else "-" for ch in text)


def _literal(value: object, indent: int = 4) -> str:
    """A Python literal for JSON data, spread over lines the way people write them."""
    text = json.dumps(value, ensure_ascii=False)
    text = text.replace("true", "True").replace("false", "False").replace("null", "None")
    if len(text) + indent <= 96:
        return text
    if isinstance(value, dict):
        pad = " " * (indent + 4)
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_literal(v, indent + 4)},"
                 for k, v in value.items()]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list):
        pad = " " * (indent + 4)
        items = [f"{pad}{_literal(v, indent + 4)}," for v in value]
        return "[\n" + "\n".join(items) + "\n" + " " * indent + "]"
    return text


def _tool(index: int, rng: random.Random) -> tuple[str, str]:
    non_ascii = rng.random() < 0.55
    base = rng.choice(WORDS)
    name = f"{base}_tool_{index}"
    target = rng.choice((40, 50, 60, 70, 80, 90, 100, 120, 140, 160, 180, 200, 240, 300))
    properties: dict[str, dict[str, object]] = {}
    recipes: dict[str, list[object]] = {}
    for key in rng.sample(WORDS, rng.randint(2, 6)):
        schema, values = _schema_property(rng, non_ascii)
        properties[key] = schema
        recipes[key] = values  # type: ignore[assignment]
    required = sorted(rng.sample(sorted(properties), rng.randint(1, len(properties))))
    params_schema = {"type": "object", "properties": properties, "required": required}
    if rng.random() < 0.4:
        params_schema["additionalProperties"] = False
    examples = []
    for _ in range(rng.randint(3, 8)):
        params = {key: rng.choice(recipes[key]) for key in required}
        for key in properties:
            if key not in params and rng.random() < 0.4:
                params[key] = rng.choice(recipes[key])
        examples.append({"params": params, "result": _result(rng, non_ascii)})
    description = (f"Computes the {base} summary of the given {rng.choice(WORDS)}"
                   + (" (handles “smart quotes”, ü and 東京)" if non_ascii else "") + ".")
    helpers: list[str] = []
    imports: set[str] = set(rng.sample(EXTRA_IMPORTS, rng.randint(1, 3)))
    constants: list[str] = []
    lines = 14 + len(properties) + sum(_literal(e).count("\n") + 1 for e in examples)
    n = 0
    while lines < target or not helpers:
        source, needs = HELPERS[rng.randrange(len(HELPERS))]
        stem = source.split("_{n}", 1)[0].removeprefix("def ")
        helper = source.format(n=n)
        if non_ascii and rng.random() < 0.3:
            helper = helper.replace("\n", f"  # {rng.choice(NON_ASCII)}\n", 1)

        helpers.append(helper)
        imports.update(needs)
        if stem in NEEDS_CONSTANT:
            constants.append(CONSTANTS[NEEDS_CONSTANT[stem]].format(n=n))
        lines += helper.count("\n") + 2
        n += 1
    first = helpers[0].split("(", 1)[0].removeprefix("def ")
    docstring = (f'"""{description} Written for the gate benchmark'
                 + (f" — sample № {index}." if non_ascii else f", sample {index}.") + '"""')
    parts = [docstring, *sorted(imports), ""]
    parts.append(f"NAME = {name!r}")
    parts.append(f"DESCRIPTION = {json.dumps(description, ensure_ascii=False)}")
    parts.append(f"PARAMS = {_literal(params_schema, 0)}")
    parts.append("EXAMPLES = [\n" + "\n".join(f"    {_literal(e, 4)}," for e in examples) + "\n]")
    parts.extend(c.rstrip("\n") for c in constants)
    parts.append("")
    for helper in helpers:
        parts.append("\n" + helper)
    keys = ", ".join(repr(k) for k in required)
    parts.append(f'''
def run(params):
    # Reads the required keys ({keys}) and reports what {first} made of them.
    missing = [key for key in ({keys},) if key not in params]
    if missing:
        return {{"error": f"missing: {{', '.join(missing)}}"}}
    return {{"name": NAME, "helper": "{first}", "keys": sorted(params)}}
''')
    source = "\n".join(parts)
    return f"{name}.py", source if non_ascii else _ascii(source)


def realistic_corpus(count: int = 2000, seed: int = 15) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [_tool(index, rng) for index in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", help="write the corpus here")
    parser.add_argument("--count", type=int, default=2000)
    args = parser.parse_args()
    corpus = realistic_corpus(args.count)
    if args.directory:
        target = Path(args.directory)
        target.mkdir(parents=True, exist_ok=True)
        for name, source in corpus:
            (target / name).write_text(source, encoding="utf-8")
    sizes = sorted(source.count("\n") for _, source in corpus)
    non_ascii = sum(not source.isascii() for _, source in corpus)
    print(f"{len(corpus)} files, {sizes[0]}-{sizes[-1]} lines (median {sizes[len(sizes) // 2]}), "
          f"{non_ascii} with non-ASCII text", file=sys.stdout)


if __name__ == "__main__":
    main()
