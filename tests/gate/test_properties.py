"""Properties of the gate that must hold for every input, checked on generated inputs.

1. Nothing crashes it: hypothesmith programs (valid Python, rarely tool-shaped) and arbitrary
   bytes always yield a GateReport whose findings carry known codes and 1-based positions.
2. Mutation: a forbidden construct inserted anywhere sensible into an accepted, contract-shaped
   tool is always refused, with the construct's own code, on the inserted lines.
3. The gate is deterministic and pure: same input, same report; checking a file imports and
   executes nothing from it.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dyntools.gate import check_source, load_policy
from dyntools.gate.findings import RULES, GateReport, render_text, to_json, to_sarif
from tests.support.budget import examples

REPO = Path(__file__).resolve().parents[2]
ACCEPT_DIR = REPO / "tests" / "gate" / "cases" / "accept"
TEMPLATES = REPO / "dyntools" / "generators" / "templates"
POLICY = load_policy()

# hypothesmith's grammar programs trip the compiler's own SyntaxWarnings in hypothesmith's
# validity check (the gate silences them around its own parse).
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

QUICK = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def assert_well_formed(report: GateReport) -> None:
    assert isinstance(report, GateReport)
    assert report.accepted == (not report.findings)
    for finding in report.findings:
        assert finding.code in RULES, finding
        assert finding.code != "DT902", f"a gate rule crashed: {finding.message}"
        assert finding.line >= 1, finding
        assert finding.col >= 1, finding
    render_text(report)
    to_json([report])
    to_sarif([report], "test")


# ---------------------------------------------------------------------------- never crashes
# Programs drawn from the grammar are slow to draw (~0.1 s each): the suite draws a few
# dozen, `make fuzz` thousands (atheris fuzzes the gate there too). libcst's strategy costs
# 5-10 s to start and a second an example: it runs under `make fuzz` only.
@settings(QUICK, max_examples=examples(50, 3000))
@given(hypothesmith.from_grammar())
def test_grammar_programs_never_crash_the_gate(source: str) -> None:
    assert_well_formed(check_source(source, POLICY))


@pytest.mark.fuzz
@settings(QUICK, max_examples=1000)
@given(hypothesmith.from_node())
def test_libcst_programs_never_crash_the_gate(source: str) -> None:
    assert_well_formed(check_source(source, POLICY))


@settings(QUICK, max_examples=300)
@given(st.binary(max_size=2048))
def test_arbitrary_bytes_never_crash_the_gate(data: bytes) -> None:
    assert_well_formed(check_source(data, POLICY))


@settings(QUICK, max_examples=300)
@given(st.text(max_size=1024))
def test_arbitrary_text_never_crashes_the_gate(text: str) -> None:
    """Text may hold lone surrogates, which have no UTF-8 form: still a clean finding."""
    assert_well_formed(check_source(text, POLICY))


# PARAMS is handed to a JSON Schema library (Rust, through pyo3): whatever schema a model
# writes, the gate must answer with a finding, never an escaped exception or a DT902.
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
SCHEMA_WORDS = st.sampled_from(
    [
        "#", "#/", "#/$defs/a", "#/$defs/b", "#/properties/a", "#/definitions/a", "#a", "#/0",
        "object", "string", "integer", "array", "regex", "email", "date-time", "uri",
        "(a+)+$", "[", "\\p{L}+", "(?<=a)b", "^\\d{1,3}$", "a{2,1}",
        "https://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft-04/schema#", "http://example.com/s",
    ]
)
SCHEMA_KEYS = st.sampled_from(
    [
        "type", "properties", "items", "prefixItems", "pattern", "patternProperties", "$ref",
        "$defs", "definitions", "a", "b", "required", "enum", "const", "minimum", "maximum",
        "exclusiveMinimum", "multipleOf", "minLength", "maxLength", "format", "allOf", "anyOf",
        "oneOf", "not", "if", "then", "else", "additionalProperties", "propertyNames",
        "$schema", "$id", "id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef",
        "dependentSchemas", "unevaluatedProperties", "contains", "minContains", "uniqueItems",
    ]
)
SCHEMAS = st.recursive(
    JSON_SCALARS | SCHEMA_WORDS,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(SCHEMA_KEYS | st.text(max_size=4), children, max_size=5),
    max_leaves=30,
)


@settings(QUICK, max_examples=examples(80, 3000))
@given(
    st.dictionaries(SCHEMA_KEYS, SCHEMAS, max_size=6),
    st.dictionaries(st.sampled_from(["a", "b", "c"]), SCHEMAS, max_size=3),
)
def test_any_params_schema_gets_a_clean_verdict(schema: dict, params: dict) -> None:
    schema = {"type": "object", **schema}
    source = (
        '"""Generated."""\nNAME = "schema_probe"\nDESCRIPTION = "d"\n'
        f"PARAMS = {schema!r}\n"
        f'EXAMPLES = [{{"params": {params!r}, "result": {{}}}}]\n'
        "def run(params):\n    return {}\n"
    )
    assert_well_formed(check_source(source, POLICY))


# ---------------------------------------------------------------------------- mutation
# Tools written in this file, so the mutation test has helpers and nested blocks to aim at
# even before the accept corpus exists.
BUILT_TOOLS = (
    '''\
"""Counts words, lines and characters."""
import re
from collections import Counter

NAME = "text_stats"
DESCRIPTION = "Counts words, lines and characters of a text."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [{"params": {"text": "a b"}, "result": {"words": 2, "lines": 1, "chars": 3}}]


def split_words(text):
    words = re.findall(r"[A-Za-z']+", text)
    return [word.lower() for word in words if word]


def top_words(words, limit=3):
    counts = Counter(words)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [word for word, _ in ranked[:limit]]


def run(params):
    text = params["text"]
    words = split_words(text)
    lines = text.splitlines() or [""]
    if not words:
        return {"words": 0, "lines": len(lines), "chars": len(text)}
    for line in lines:
        if len(line) > 1000:
            raise ValueError("line too long")
    return {"words": len(words), "lines": len(lines), "chars": len(text)}
''',
    '''\
"""Converts between Celsius, Fahrenheit and Kelvin."""
import math

NAME = "temperature_table"
DESCRIPTION = "Builds a conversion table between temperature scales."
PARAMS = {
    "type": "object",
    "properties": {"start": {"type": "number"}, "stop": {"type": "number"}},
    "required": ["start", "stop"],
}


def to_fahrenheit(celsius: float) -> float:
    return celsius * 9 / 5 + 32


def to_kelvin(celsius: float) -> float:
    if celsius < -273.15:
        raise ValueError("below absolute zero")
    return celsius + 273.15


def run(params):
    start, stop = params["start"], params["stop"]
    rows = []
    value = start
    while value <= stop:
        try:
            rows.append({"c": value, "f": to_fahrenheit(value), "k": to_kelvin(value)})
        except ValueError as error:
            rows.append({"c": value, "error": str(error)})
        finally:
            value += 10
    return {"rows": rows, "span": math.fabs(stop - start)}
''',
)


def contract_shaped_tools() -> list[str]:
    sources = list(BUILT_TOOLS)
    for folder in (ACCEPT_DIR, TEMPLATES):
        if folder.is_dir():
            sources.extend(p.read_text("utf-8") for p in sorted(folder.glob("*.py"))[:40])
    tools = [s for s in sources if check_source(s, POLICY).accepted]
    assert len(tools) >= len(BUILT_TOOLS)
    return tools


TOOLS = contract_shaped_tools()


@dataclass(frozen=True)
class Snippet:
    source: str
    code: str
    where: str  # "body": inside a function body; "top": at the top level; "any": either
    needs: str = ""  # a top-level import the snippet's meaning depends on
    anchored: bool = True  # the finding points at one of the inserted lines


SNIPPETS = (
    # names and attributes
    Snippet("params.__class__", "DT302", "body"),
    Snippet("x = params.__class__.__mro__", "DT302", "body"),
    Snippet("value = params['a'].__dict__", "DT302", "body"),
    Snippet("frame = (i for i in []).gi_frame", "DT303", "body"),
    Snippet("tb = params.tb_frame", "DT303", "body"),
    Snippet("back = params.f_back.f_globals", "DT303", "body"),
    Snippet("code = run.co_code", "DT303", "body"),
    Snippet("print('{0.x}'.format(params))", "DT304", "body"),
    Snippet("text = '{a}'.format_map(params)", "DT304", "body"),
    Snippet("params.a = 1", "DT305", "body"),
    Snippet("del params.a", "DT305", "body"),
    Snippet("params.count += 1", "DT305", "body"),
    Snippet("hook = lambda: __import__('os')", "DT301", "any"),
    Snippet("_getattr_ = 1", "DT301", "body"),
    Snippet("_print = 1", "DT301", "any"),
    Snippet("items = [_getiter_ for _getiter_ in []]", "DT301", "body"),
    Snippet("print(_unbound)", "DT301", "body"),
    Snippet("print(dict(_x=1))", "DT301", "body"),
    Snippet("for __x in []:\n    pass", "DT301", "body"),
    Snippet("print(undefined_thing)", "DT306", "body"),
    # calls and builtins
    Snippet("getattr(params, 'a')", "DT401", "body"),
    Snippet("eval('1')", "DT401", "body"),
    Snippet("exec('x = 1')", "DT401", "body"),
    Snippet("compile('1', 'x', 'eval')", "DT401", "body"),
    Snippet("handle = open('/etc/passwd')", "DT401", "body"),
    Snippet("scope = globals()", "DT401", "body"),
    Snippet("kind = type(params)", "DT401", "body"),
    Snippet("base = object", "DT401", "body"),
    Snippet("setattr(params, 'a', 1)", "DT401", "body"),
    Snippet("def helper(reach=vars()):\n    return reach", "DT401", "any"),
    Snippet("try:\n    pass\nexcept BaseException:\n    pass", "DT401", "body"),
    Snippet("caller = operator.attrgetter('a')", "DT402", "body", needs="import operator"),
    Snippet("system = os.system('id')", "DT402", "body", needs="import os"),
    # imports
    Snippet("import os", "DT201", "top"),
    Snippet("import subprocess", "DT201", "top"),
    Snippet("from os import system", "DT201", "top"),
    Snippet("from re import *", "DT203", "top"),
    Snippet("import os", "DT201", "body"),
    Snippet("from json import decoder", "DT207", "body"),
    Snippet("import re\nalias = re", "DT206", "body"),
    Snippet("decoder = json.decoder", "DT207", "body", needs="import json"),
    Snippet("enum = re.enum", "DT207", "body", needs="import re"),
    Snippet("from json import decoder", "DT207", "top"),
    Snippet("alias = math", "DT206", "body", needs="import math"),
    Snippet("print(math)", "DT206", "body", needs="import math"),
    # shape
    Snippet("class A:\n    pass", "DT102", "any"),
    Snippet("@staticmethod\ndef helper():\n    return 1", "DT103", "any"),
    Snippet("async def helper():\n    return 1", "DT104", "any"),
    Snippet("global counter", "DT105", "body"),
    Snippet("print('side effect')", "DT101", "top"),
    Snippet("len = 1", "DT106", "top"),
    Snippet("Params = 1", "DT106", "top"),
    Snippet("@functools.wraps(len)\ndef helper():\n    return 1", "DT103", "any",
            needs="import functools"),
    Snippet("alias = Iterable", "DT210", "body", needs="from collections.abc import Iterable"),
    Snippet("LIMIT = len('abc')", "DT107", "top"),
    # syntax
    Snippet("match params:\n    case {'a': 1}:\n        pass", "DT701", "body"),
    Snippet("def helper(x: 'forward') -> int:\n    return 1", "DT702", "any"),
    Snippet("def helper(x: print()) -> int:\n    return 1", "DT702", "any"),
)


@dataclass(frozen=True)
class Slot:
    line: int  # 1-based: the snippet goes before this line (len(lines) + 1 appends)
    indent: int
    scope: str  # "body" or "top"


def insertion_slots(source: str) -> list[Slot]:
    """Every line a statement starts on by itself, in a function body or at the top level."""
    tree = ast.parse(source)
    lines = source.splitlines()
    slots: list[Slot] = []

    def own_line(stmt: ast.stmt) -> bool:
        # An `elif` is an If node on its own line, but nothing may be inserted before it.
        text = lines[stmt.lineno - 1]
        return not text[: stmt.col_offset].strip() and not text.lstrip().startswith("elif")

    def first_line(stmt: ast.stmt) -> int:
        # A decorated def starts at its first decorator: nothing goes between them.
        return min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])

    def add_body(body: list[ast.stmt]) -> None:
        for stmt in body:
            if own_line(stmt):
                slots.append(Slot(first_line(stmt), stmt.col_offset, "body"))
            for field_name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field_name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    add_body(inner)
            for handler in getattr(stmt, "handlers", ()):
                add_body(handler.body)
        last = body[-1]
        if own_line(body[0]) and last.end_lineno is not None:
            slots.append(Slot(last.end_lineno + 1, body[0].col_offset, "body"))

    for index, stmt in enumerate(tree.body):
        is_docstring = index == 0 and isinstance(stmt, ast.Expr)
        if not is_docstring:
            slots.append(Slot(first_line(stmt), 0, "top"))
        if isinstance(stmt, ast.FunctionDef):
            add_body(stmt.body)
    slots.append(Slot(len(lines) + 1, 0, "top"))
    return slots


def insert(source: str, snippet: str, slot: Slot) -> tuple[str, range]:
    lines = source.splitlines()
    block = textwrap.indent(snippet, " " * slot.indent).splitlines()
    lines[slot.line - 1 : slot.line - 1] = block
    return "\n".join(lines) + "\n", range(slot.line, slot.line + len(block))


def add_import(source: str, statement: str) -> str:
    """Put an import just before the first top-level statement after the docstring."""
    tree = ast.parse(source)
    first = tree.body[1] if isinstance(tree.body[0], ast.Expr) else tree.body[0]
    lines = source.splitlines()
    lines.insert(first.lineno - 1, statement)
    return "\n".join(lines) + "\n"


def test_every_snippet_targets_a_known_code() -> None:
    assert {s.code for s in SNIPPETS} <= set(RULES)
    assert len(SNIPPETS) >= 30


def test_the_unmutated_tools_are_accepted() -> None:
    assert len(TOOLS) >= 2
    for source in TOOLS:
        assert check_source(source, POLICY).accepted


@settings(QUICK, max_examples=300)
@given(st.sampled_from(TOOLS), st.sampled_from(SNIPPETS), st.data())
def test_inserting_a_forbidden_construct_is_always_refused(
    tool: str, snippet: Snippet, data: st.DataObject
) -> None:
    if snippet.needs:
        tool = add_import(tool, snippet.needs)
    slots = [
        s for s in insertion_slots(tool) if snippet.where == "any" or s.scope == snippet.where
    ]
    slot = data.draw(st.sampled_from(slots), label="slot")
    mutated, inserted = insert(tool, snippet.source, slot)
    report = check_source(mutated, POLICY)
    assert not report.accepted, mutated
    assert snippet.code in report.codes, (sorted(report.codes), mutated)
    if snippet.anchored:
        lines = {f.line for f in report.findings if f.code == snippet.code}
        assert lines & set(inserted), (snippet, sorted(lines), list(inserted), mutated)


def test_mutation_also_hits_nested_blocks() -> None:
    """The slot finder reaches into if/for/while/try bodies, not only function tops."""
    slots = insertion_slots(BUILT_TOOLS[1])
    body_indents = {s.indent for s in slots if s.scope == "body"}
    assert max(body_indents) >= 12


# ---------------------------------------------------------------------------- determinism
@settings(QUICK, max_examples=50)
@given(st.sampled_from(TOOLS), st.sampled_from(SNIPPETS))
def test_the_gate_is_deterministic(tool: str, snippet: Snippet) -> None:
    slot = insertion_slots(tool)[-1]
    mutated, _ = insert(tool, snippet.source, slot)
    first = check_source(mutated, POLICY)
    second = check_source(mutated.encode("utf-8"), POLICY)
    assert first == second
    assert first.as_dict() == second.as_dict()


REJECT_DIR = REPO / "tests" / "gate" / "cases" / "reject"
REF_LOOP = """\"\"\"d.\"\"\"
NAME = "ref_loop"
DESCRIPTION = "d"
PARAMS = {"type": "object", "properties": {"p": {"$ref": "#/$defs/a"}}, "$defs": {
    "a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/c"}, "c": {"$ref": "#/$defs/a"}}}
def run(params):
    return {}
"""
SEED_PROBE = """
import json, sys
from pathlib import Path
from dyntools.gate import check_source
paths = sys.argv[1:]
print(json.dumps([check_source(Path(p).read_bytes(), path=p).as_dict() for p in paths]))
"""


def reports_under_hash_seed(paths: list[str], seed: str) -> object:
    result = subprocess.run(
        [sys.executable, "-c", SEED_PROBE, *paths],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": seed},
    )
    return json.loads(result.stdout)


def test_reports_do_not_depend_on_the_hash_seed() -> None:
    """Set and dict-of-set iteration order changes with PYTHONHASHSEED; messages must not."""
    paths = [str(p) for p in sorted(REJECT_DIR.glob("*.py"))]
    paths += [str(p) for p in sorted(TEMPLATES.glob("*.py"))]
    assert reports_under_hash_seed(paths, "1") == reports_under_hash_seed(paths, "2")


def test_ref_loop_message_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    path = tmp_path / "ref_loop.py"
    path.write_text(REF_LOOP, "utf-8")
    reports = [reports_under_hash_seed([str(path)], seed) for seed in ("1", "2", "3", "5")]
    assert all(r == reports[0] for r in reports), reports


# ---------------------------------------------------------------------------- purity
# Modules a file may name; the gate must import none of them. Checked in a fresh interpreter,
# so whatever this test process has already imported does not hide an import by the gate.
CANARY_MODULES = ("calendar", "zoneinfo", "statistics", "this", "sqlite3", "smtplib", "tkinter")

PURITY_PROBE = """
import sys
from pathlib import Path
from dyntools.gate import check_source
canaries = {canaries!r}
source = Path(sys.argv[1]).read_bytes()
check_source(b"NAME = 1\\n")  # warm up: the gate's own lazy imports are not the file's
before = set(sys.modules)
report = check_source(source)
after = set(sys.modules)
print(sorted(after - before))
print(sorted(c for c in canaries if c in before))
print(report.accepted)
"""


def test_checking_a_file_imports_and_runs_nothing_from_it(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    tool = tmp_path / "tool.py"
    imports = "\n".join(f"import {name}" for name in CANARY_MODULES)
    tool.write_text(
        f'"""Would leave a marker if it ever ran."""\n{imports}\n'
        f"MARKER = open({str(marker)!r}, 'w').write('ran')\n"
        "def run(params):\n    return {}\n",
        "utf-8",
    )
    probe = PURITY_PROBE.format(canaries=CANARY_MODULES)
    result = subprocess.run(
        [sys.executable, "-c", probe, str(tool)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    new_modules, preloaded, accepted = result.stdout.splitlines()
    assert len(ast.literal_eval(preloaded)) <= len(CANARY_MODULES) - 3, "pick other canaries"
    assert new_modules == "[]"
    assert accepted == "False"
    assert not marker.exists()


def test_checking_in_process_asks_for_no_canary_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process, whatever earlier tests imported: the gate asks the import system for
    none of the modules a file names (watched at the import functions, which a module already
    in sys.modules does not hide; it used to skip once every canary was imported)."""
    import builtins
    import importlib

    asked: list[str] = []
    real_import, real_import_module = builtins.__import__, importlib.import_module

    def watched_import(name: str, *args: object, **kwargs: object) -> object:
        asked.append(name)
        return real_import(name, *args, **kwargs)

    def watched_import_module(name: str, package: str | None = None) -> object:
        asked.append(name)
        return real_import_module(name, package)

    source = "\n".join(f"import {name}" for name in CANARY_MODULES) + "\n"
    check_source(source, POLICY)  # the gate's own lazy imports happen here, not below
    monkeypatch.setattr(builtins, "__import__", watched_import)
    monkeypatch.setattr(importlib, "import_module", watched_import_module)
    check_source(source, POLICY)
    monkeypatch.undo()
    assert [name for name in asked if name.partition(".")[0] in CANARY_MODULES] == []
