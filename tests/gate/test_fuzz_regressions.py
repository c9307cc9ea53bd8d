"""Replays every input the fuzzer ever broke the gate with, and the fuzzer's seed corpus.

A file in tests/fuzz/regressions/ is the raw input (bytes exactly as libFuzzer wrote them);
an optional sibling `<name>.expect` lists the codes its report must hold, space-separated.
tests/fuzz/README.md says how a crash becomes such a file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dyntools.gate import check_source, load_policy
from dyntools.gate.findings import RULES, render_text, to_json, to_sarif

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"
POLICY = load_policy()


def inputs(folder: str) -> list[Path]:
    return sorted(
        p for p in (FUZZ / folder).iterdir()
        if p.is_file() and p.suffix != ".expect" and not p.name.startswith((".", "README"))
    )


def assert_promises_kept(data: bytes) -> set[str]:
    """The same promises fuzz_gate.py checks: a report, known codes, 1-based, no DT902."""
    report = check_source(data, POLICY, path="regression.py")
    for finding in report.findings:
        assert finding.code in RULES, finding
        assert finding.code != "DT902", finding.message
        assert finding.line >= 1 and finding.col >= 1, finding
    render_text(report)
    json.dumps(to_json([report]))
    json.dumps(to_sarif([report], "test"))
    return set(report.codes)


@pytest.mark.parametrize("path", inputs("regressions"), ids=lambda p: p.name)
def test_regression_input(path: Path) -> None:
    codes = assert_promises_kept(path.read_bytes())
    expect = path.with_name(path.name + ".expect")
    if expect.exists():
        assert codes == set(expect.read_text("utf-8").split())


@pytest.mark.parametrize("path", inputs("corpus"), ids=lambda p: p.name)
def test_seed_corpus_input(path: Path) -> None:
    codes = assert_promises_kept(path.read_bytes())
    if path.name.startswith("accept_"):
        assert codes == set()
    elif path.name.startswith("reject_"):
        assert codes
