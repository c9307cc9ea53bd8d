"""The gate's script mode (dyntools/gate/script.py): the rules of tool files, the same findings,
codes, lines and columns, minus the contract's; and the rules of scripts themselves.

cases/script_reject/ holds one technique per script, annotated as cases/reject/ is (the exact
multiset of (line, code)); cases/script_accept/ holds realistic scripts that must pass. The
tool corpus itself (cases/reject/) is also run as scripts: each attack that is not about a
tool's metadata is refused in a script with the same finding on the same line.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from dyntools import __version__
from dyntools.gate import check_script, check_source
from dyntools.gate.findings import RULES, Family, render_text, to_sarif
from tests.gate.test_cases import REJECT, parse_expectations

CASES = Path(__file__).parent / "cases"
SCRIPT_REJECT = sorted((CASES / "script_reject").glob("*.py"))
SCRIPT_ACCEPT = sorted((CASES / "script_accept").glob("*.py"))
SCRIPT_CODES = frozenset({"DT109", "DT110", "DT308", "DT406"})
# Codes that only a tool file can earn: its metadata, its top-level shape, `run`, and what its
# CAPABILITIES declaration allows of `host` (a script declares none: DT403 refuses host
# members in scripts instead).
TOOL_ONLY = frozenset({"DT101", "DT106", "DT107", "DT108", "DT209", "DT403", "DT404", "DT405",
                       "DT601", "DT602", "DT603"} | {c for c in RULES if c.startswith("DT5")})
METADATA = ("NAME", "DESCRIPTION", "PARAMS", "EXAMPLES", "CAPABILITIES")


def _found(data: bytes, path: str) -> Counter[tuple[int, str]]:
    return Counter((f.line, f.code) for f in check_script(data, path=path).findings)


@pytest.mark.parametrize("path", SCRIPT_REJECT, ids=[p.stem for p in SCRIPT_REJECT])
def test_script_attack_is_refused_exactly_as_annotated(path: Path) -> None:
    data = path.read_bytes()
    expectation = parse_expectations(data)
    assert expectation.findings and expectation.has_technique and expectation.has_source
    report = check_script(data, path=str(path))
    found = Counter((f.line, f.code) for f in report.findings)
    assert found == expectation.findings, render_text(report)
    assert expectation.family in {f.family.value for f in report.findings}


@pytest.mark.parametrize("path", SCRIPT_ACCEPT, ids=[p.stem for p in SCRIPT_ACCEPT])
def test_benign_script_is_accepted(path: Path) -> None:
    report = check_script(path.read_bytes(), path=str(path))
    assert report.accepted, render_text(report)
    assert report.metadata is None  # a script has no metadata


def test_every_script_rule_has_a_rejecting_case() -> None:
    covered = {code for path in SCRIPT_REJECT
               for _, code in parse_expectations(path.read_bytes()).findings}
    assert covered >= SCRIPT_CODES, sorted(SCRIPT_CODES - covered)
    assert covered <= set(RULES)


def test_scripts_are_not_tool_files() -> None:
    """The two modes do not leak into each other: a script is refused as a tool file, and a
    tool file as a script (with the findings that say why)."""
    script = (SCRIPT_ACCEPT[0]).read_bytes()
    as_tool = check_source(script)
    assert {"DT501", "DT601"} <= as_tool.codes
    tool = (CASES / "accept").glob("*.py").__next__().read_bytes()
    as_script = check_script(tool)
    assert "DT109" in as_script.codes


def _as_script(data: bytes) -> tuple[bytes, set[int]]:
    """A tool file as a script: its metadata statements blanked (lines kept, so positions
    stay), and `result = run(inputs)` appended. Returns the script and the blanked lines."""
    text = data.decode("utf-8", "replace")
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return data + b"\nresult = run(inputs)\n", set()
    lines = text.split("\n")
    blanked: set[int] = set()
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id in METADATA for t in targets):
            for number in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1):
                lines[number - 1] = ""
                blanked.add(number)
    return ("\n".join(lines) + "\nresult = run(inputs)\n").encode("utf-8", "surrogatepass"), \
        blanked


def test_the_tool_attack_corpus_is_refused_as_scripts() -> None:
    """Every attack of cases/reject/ that is not about a tool's metadata or declaration is
    refused as a script, with each of its findings at the same line and code."""
    checked = 0
    for path in REJECT:
        data = path.read_bytes()
        expected = parse_expectations(data).findings
        script, blanked = _as_script(data)
        wanted = Counter({(line, code): n for (line, code), n in expected.items()
                          if code not in TOOL_ONLY and line not in blanked})
        if not wanted:
            continue
        found = _found(script, str(path))
        assert found, f"{path.name} passes the gate as a script"
        missing = wanted - found
        assert not missing, f"{path.name}: missing as a script: {sorted(missing)}"
        checked += 1
    assert checked >= 200, checked  # most of the corpus is about code, not metadata


@pytest.mark.parametrize("body", [
    "x = 'é€😀'; y = inputs.__class__\nresult = {}\n",
    "import subprocess\nresult = {}\n",
    "value = '{}'.format(1)\nresult = {}\n",
])
def test_findings_are_the_tool_files_own(body: str) -> None:
    """The same code, line and column in both modes for the rules they share."""
    tool = ('"""t."""\nNAME = "t"\nDESCRIPTION = "t."\nPARAMS = {"type": "object"}\n\n\n'
            "def run(params):\n    inputs = params\n" +
            "".join(f"    {line}\n" for line in body.replace("result = {}", "result = {}")
                    .splitlines()) + "    return result\n")
    in_tool = {(f.code, f.message) : f.col - 4 for f in check_source(tool).findings}
    in_script = {(f.code, f.message): f.col for f in check_script(body).findings}
    shared = set(in_tool) & set(in_script)
    assert shared, (in_tool, in_script)
    for key in shared:
        assert in_tool[key] == in_script[key], key


def test_a_script_report_renders_as_text_json_and_sarif() -> None:
    data = (CASES / "script_reject" / "calls_script_tools_positional.py").read_bytes()
    report = check_script(data, path="job.py")
    assert render_text(report).startswith("job.py:4:27: DT406 ")
    assert report.as_dict()["findings"][0]["rule"] == "tool-call-form"
    sarif = to_sarif([report], __version__)
    result = sarif["runs"][0]["results"][0]
    assert (result["ruleId"], result["locations"][0]["physicalLocation"]["region"]) == (
        "DT406", {"startLine": 4, "startColumn": 27})
    assert RULES["DT406"].family is Family.CALLS


@pytest.mark.parametrize("data", [
    b"", b"\xff\xfe", b"result = (" * 300, b"x = [" * 150 + b"]" * 150 + b"\nresult = x\n",
    b"result = 1\n" + b"y = tools.a(b=1)\n" * 30000, b"tools\n" * 100 + b"result = 1\n",
    "result = 'a\u202eb'\n".encode(), b"def f(\n",
])
def test_the_script_gate_never_raises(data: bytes) -> None:
    """Refused with a finding of its own (size, nesting, syntax, hidden characters), never
    with the gate's own failure."""
    report = check_script(data)
    assert not report.accepted
    assert "DT902" not in report.codes, report.findings


# (code, refused script with the offending line marked `#!`, accepted twin)
RULE_CASES = [
    ("DT109", 'DESCRIPTION = "a tool"  #!\nresult = {}\n', 'description = "a tool"\nresult = {}\n'),
    ("DT110", "value = 1\n", "value = 1\nresult = {'value': value}\n"),
    ("DT308", "inputs = {}  #!\nresult = inputs\n", "given = dict(inputs)\nresult = given\n"),
    ("DT308", "def f():\n    result = 1  #!\n    return result\nresult = f()\n",
     "def f():\n    answer = 1\n    return answer\nresult = f()\n"),
    ("DT406", "f = tools.word_count  #!\nresult = f(text='a')\n",
     "result = tools.word_count(text='a')\n"),
    ("DT406", "result = tools.word_count('a')  #!\n",
     "params = {'text': 'a'}\nresult = tools.word_count(**params)\n"),
    ("DT403", "import host\nresult = host.call_tool('word_count', {})  #!\n",
     "from host import ToolError\ntry:\n    result = tools.word_count(text='a')\n"
     "except ToolError:\n    result = {}\n"),
]


@pytest.mark.parametrize(("code", "bad", "good"), RULE_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(RULE_CASES)])
def test_script_rule_refuses_and_accepts(code: str, bad: str, good: str) -> None:
    report = check_script(bad)
    marked = next((n for n, line in enumerate(bad.splitlines(), 1)
                   if line.rstrip().endswith("#!")), 1)
    assert (code, marked) in {(f.code, f.line) for f in report.findings}, report.findings
    accepted = check_script(good)
    assert accepted.accepted, accepted.findings
