"""The gate's two corpora: every attack is refused exactly as annotated, every benign tool passes.

Attack files live in cases/reject/, one technique per file. Each offending line carries a
trailing `# expect: DT302 DT302` (one code per finding on that line); findings that cannot sit
behind a trailing comment (a file-level finding, a coding cookie, a syntax error) are declared
in a header line `# expect-at: LINE CODE...`. The header also names the `# family:` the attack
belongs to. The test asserts the exact multiset of (line, code) pairs, so a finding that moves,
disappears or doubles is a failure, and a finding the file did not announce is one too.

Attacks that cannot live in a UTF-8 text file at all (invalid UTF-8, NUL bytes, a BOM, size and
complexity limits) are built here from the small table GENERATED_CASES.

Benign files in cases/accept/ are realistic tools; each must be accepted with zero findings.
cases/accept_host/ holds benign tools that reach the world through the `host` module (with a
CAPABILITIES declaration and recorded exchanges): accepted here the same way, and kept apart
because tests/sandbox runs cases/accept/ for real, which for these needs the worker's `host`
module and the broker's replay of recorded exchanges.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from dyntools.gate import check_source
from dyntools.gate.findings import RULES, Family, GateReport
from dyntools.gate.policy import load_policy

CASES = Path(__file__).parent / "cases"
REJECT = sorted((CASES / "reject").glob("*.py"))
ACCEPT = sorted((CASES / "accept").glob("*.py"))
ACCEPT_HOST = sorted((CASES / "accept_host").glob("*.py"))
# Code-mode scripts (annotated the same way; run by test_script_mode.py with check_script).
SCRIPT_REJECT = sorted((CASES / "script_reject").glob("*.py"))
# Attacks the gate accepts and the sandbox must contain (tests/sandbox/test_contained_corpus.py
# runs them with their `# verdict:`).
CONTAINED = sorted((CASES / "contained").glob("*.py"))

# Rule codes that no file can trigger on purpose: DT9xx means the gate itself failed.
NO_REJECTING_CASE_NEEDED = frozenset(code for code in RULES if code.startswith("DT9"))

# Attacks the gate does not yet refuse as annotated. The expectation in the file is what the
# design asks for and is NOT edited to match the gate; each case runs as a strict xfail, so it
# turns into a failure (and must leave this table) the day the gate catches it.
KNOWN_GATE_GAPS: dict[str, str] = {
}

# A lone CR ends a line for Python but not for the "\n" split, so it may end an annotation too.
_EXPECT = re.compile(r"#\s*expect:\s*((?:DT\d{3}[ \t]*)+)(?:\r|$)")
_EXPECT_AT = re.compile(r"^#\s*expect-at:\s*(\d+)\s+((?:DT\d{3}[ \t]*)+)$")
_FAMILY = re.compile(r"^#\s*family:\s*(\w+)\s*$")
_TECHNIQUE = re.compile(r"^#\s*technique:\s*\S")
_SOURCE = re.compile(r"^#\s*source:\s*\S")

Expected = Counter[tuple[int, str]]


@dataclass(frozen=True)
class Expectation:
    findings: Expected
    family: str | None
    has_technique: bool
    has_source: bool = False


def parse_expectations(data: bytes) -> Expectation:
    """Read `# expect:`, `# expect-at:`, `# family:` and `# technique:` from a case file.

    Lines are split on "\\n" only, as the gate counts them (U+2028 is not a line break for
    Python, and some cases contain it on purpose).
    """
    findings: Expected = Counter()
    family = None
    has_technique = False
    has_source = False
    text = data.decode("utf-8", errors="replace")
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if match := _EXPECT_AT.match(stripped):
            for code in match.group(2).split():
                findings[(int(match.group(1)), code)] += 1
            continue
        if match := _FAMILY.match(stripped):
            family = match.group(1)
            continue
        if _TECHNIQUE.match(stripped):
            has_technique = True
            continue
        if _SOURCE.match(stripped):
            has_source = True
            continue
        if match := _EXPECT.search(line):
            for code in match.group(1).split():
                findings[(number, code)] += 1
    return Expectation(findings, family, has_technique, has_source)


def _found(report: GateReport) -> Expected:
    return Counter((f.line, f.code) for f in report.findings)


def _describe(report: GateReport) -> str:
    return "\n".join(f"  {f.line}:{f.col}: {f.code} {f.message}" for f in report.findings)


def _assert_exact(report: GateReport, expected: Expected, family: str | None) -> None:
    found = _found(report)
    missing = expected - found
    extra = found - expected
    assert not missing and not extra, (
        f"missing (line, code): {sorted(missing.elements())}\n"
        f"unexpected (line, code): {sorted(extra.elements())}\n"
        f"gate said:\n{_describe(report)}"
    )
    assert not report.accepted
    if family is not None:
        families = {f.family.value for f in report.findings}
        assert family in families, f"family {family!r} not among {sorted(families)}"


# ------------------------------------------------------------------ the attack corpus


def _with_known_gaps(paths: list[Path]) -> list[object]:
    return [
        pytest.param(
            p,
            id=p.stem,
            marks=pytest.mark.xfail(reason=KNOWN_GATE_GAPS[p.stem], strict=True)
            if p.stem in KNOWN_GATE_GAPS
            else (),
        )
        for p in paths
    ]


@pytest.mark.parametrize("path", _with_known_gaps(REJECT))
def test_attack_is_rejected_exactly_as_annotated(path: Path) -> None:
    data = path.read_bytes()
    expectation = parse_expectations(data)
    assert expectation.findings, f"{path.name} announces no expected finding"
    report = check_source(data, path=str(path))
    _assert_exact(report, expectation.findings, expectation.family)


@pytest.mark.parametrize("path", REJECT, ids=[p.stem for p in REJECT])
def test_attack_file_has_a_header(path: Path) -> None:
    expectation = parse_expectations(path.read_bytes())
    assert expectation.has_technique, f"{path.name} has no '# technique:' header"
    assert expectation.has_source, f"{path.name} has no '# source:' header"
    assert expectation.family in {f.value for f in Family}, (
        f"{path.name}: '# family: {expectation.family}' is not a rule family"
    )


# ------------------------------------------------------------------ generated attacks

_TOOL_HEAD = (
    '"""Generated attack case."""\n'
    "\n"
    'NAME = "generated_case"\n'
    'DESCRIPTION = "Looks like an ordinary helper tool."\n'
    'PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}\n'
)
_TOOL_RUN = '\n\ndef run(params):\n    return {"ok": True}\n'
_HEAD_LINES = _TOOL_HEAD.count("\n")  # the next line written after the head is _HEAD_LINES + 1


def _tool(extra: bytes) -> bytes:
    """A valid tool with `extra` as the line right after PARAMS (line _HEAD_LINES + 1)."""
    return _TOOL_HEAD.encode() + extra + b"\n" + _TOOL_RUN.encode()


@dataclass(frozen=True)
class Generated:
    name: str
    family: str
    build: Callable[[], bytes]
    expected: tuple[tuple[int, str], ...]


def _limits() -> tuple[int, int, int]:
    limits = load_policy().limits
    return limits.max_bytes, limits.max_nodes, limits.max_depth


def _oversized() -> bytes:
    max_bytes, _, _ = _limits()
    return _tool(b"# " + b"x" * max_bytes)


def _too_many_nodes() -> bytes:
    _, max_nodes, _ = _limits()
    # One Constant node per element, two bytes each: over the node limit, under the size limit.
    return _tool(b"TABLE = [" + b"1," * (max_nodes + 10) + b"]")


def _too_deep() -> bytes:
    _, _, max_depth = _limits()
    depth = min(max_depth + 20, 190)  # CPython's own parser stops at 200 nested brackets
    return _tool(b"TABLE = " + b"[" * depth + b"]" * depth)


LINE = _HEAD_LINES + 1
GENERATED_CASES = [
    Generated(
        "invalid_utf8_byte", "hygiene", lambda: _tool(b'LABEL = "caf\xe9"'), ((LINE, "DT001"),)
    ),
    Generated(
        "invalid_utf8_overlong_slash",
        "hygiene",
        lambda: _tool(b'LABEL = "..\xc0\xaf..\xc0\xafetc"'),
        ((LINE, "DT001"),),
    ),
    Generated(
        "invalid_utf8_surrogate",
        "hygiene",
        lambda: _tool(b'LABEL = "\xed\xa0\x80"'),
        ((LINE, "DT001"),),
    ),
    Generated(
        "invalid_utf8_truncated_at_eof",
        "hygiene",
        lambda: _tool(b"# ok") + b"\xe2\x82",
        ((LINE + 5, "DT001"),),
    ),
    Generated(
        "nul_byte_in_comment", "hygiene", lambda: _tool(b"# hidden\x00 payload"), ((LINE, "DT002"),)
    ),
    Generated(
        "nul_byte_in_string", "hygiene", lambda: _tool(b'LABEL = "a\x00b"'), ((LINE, "DT002"),)
    ),
    Generated("utf8_bom", "hygiene", lambda: b"\xef\xbb\xbf" + _tool(b"# ok"), ((1, "DT005"),)),
    Generated("empty_file", "hygiene", lambda: b"", ((1, "DT012"),)),
    Generated("whitespace_only", "hygiene", lambda: b"  \n\n\t\n", ((1, "DT012"),)),
    Generated("oversized", "hygiene", _oversized, ((1, "DT008"),)),
    Generated("too_many_nodes", "hygiene", _too_many_nodes, ((LINE, "DT009"),)),
    # The deep list is also not a literal the contract can evaluate (DT107), a fair second reason.
    Generated("too_deep", "hygiene", _too_deep, ((LINE, "DT010"), (LINE, "DT107"))),
]


@pytest.mark.parametrize("case", GENERATED_CASES, ids=[c.name for c in GENERATED_CASES])
def test_generated_attack_is_rejected(case: Generated) -> None:
    report = check_source(case.build(), path=f"<{case.name}>")
    _assert_exact(report, Counter(case.expected), case.family)


# ------------------------------------------------------------------ the benign corpus


@pytest.mark.parametrize("path", ACCEPT + ACCEPT_HOST, ids=[p.stem for p in ACCEPT + ACCEPT_HOST])
def test_benign_tool_is_accepted(path: Path) -> None:
    report = check_source(path.read_bytes(), path=str(path))
    assert report.accepted, f"{path.name} refused:\n{_describe(report)}"
    assert report.findings == ()


@pytest.mark.parametrize("path", CONTAINED, ids=[p.stem for p in CONTAINED])
def test_contained_attack_passes_the_gate(path: Path) -> None:
    """These attacks are the sandbox's to stop: if the gate starts refusing one, move it to
    reject/ with its annotations (and keep a copy here only if the sandbox test still needs
    the runtime path)."""
    data = path.read_bytes()
    head = data.decode("utf-8").splitlines()[:3]
    assert [line.split(":", 1)[0] for line in head] == [
        "# technique", "# source", "# verdict"], f"{path.name}: header"
    report = check_source(data, path=str(path))
    assert report.accepted, f"{path.name} refused:\n{_describe(report)}"


# ------------------------------------------------------------------ completeness


def test_corpora_are_big_enough() -> None:
    assert len(REJECT) + len(GENERATED_CASES) >= 80
    assert len(ACCEPT) >= 45
    assert len(ACCEPT_HOST) >= 3


def test_every_rule_has_a_rejecting_case() -> None:
    covered: set[str] = set()
    for path in REJECT + SCRIPT_REJECT:
        covered.update(code for _, code in parse_expectations(path.read_bytes()).findings)
    for case in GENERATED_CASES:
        covered.update(code for _, code in case.expected)
    unknown = covered - set(RULES)
    assert not unknown, f"expectations name codes that are not rules: {sorted(unknown)}"
    missing = set(RULES) - covered - NO_REJECTING_CASE_NEEDED
    assert not missing, f"rules without a rejecting case in the corpus: {sorted(missing)}"


def test_known_gaps_name_existing_cases() -> None:
    stems = {p.stem for p in REJECT}
    assert set(KNOWN_GATE_GAPS) <= stems, sorted(set(KNOWN_GATE_GAPS) - stems)


def test_every_attack_family_is_covered() -> None:
    families = {parse_expectations(p.read_bytes()).family for p in REJECT}
    families.update(c.family for c in GENERATED_CASES)
    wanted = {f.value for f in Family} - {Family.INTERNAL.value}
    assert wanted <= families, f"families without an attack: {sorted(wanted - families)}"


def test_expectation_parser_reads_trailing_and_header_forms() -> None:
    sample = (
        b"# technique: t\n# source: s\n# family: names\n# expect-at: 1 DT501 DT502\n"
        b"x = ().__class__.__bases__  # expect: DT302 DT302\n"
        b"y = 1  # a comment that mentions expect: nothing\n"
        b"z = 1  # expect: DT006\r    hidden = 2\n"
    )
    parsed = parse_expectations(sample)
    assert parsed.family == "names"
    assert parsed.has_technique
    assert parsed.has_source
    assert parsed.findings == Counter(
        {(1, "DT501"): 1, (1, "DT502"): 1, (5, "DT302"): 2, (7, "DT006"): 1}
    )
