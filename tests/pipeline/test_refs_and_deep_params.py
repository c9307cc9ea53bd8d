"""Issue 9, findings 8 and 9: a `$ref` pointer part the resolver cannot read is a clean
DT506 at the reference's literal (it crashed a rule: DT902), and params nested 50,000 deep
are a one-line usage error with exit 2 (a RecursionError traceback, exit 1) on every command
and entry point that reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dyntools.errors import UsageError
from dyntools.gate import check_source
from dyntools.pipeline.toolmeta import MAX_PARAMS_DEPTH, nesting_depth_exceeds, parse_json_text
from tests.support.cli import dyntools

ROOT = Path(__file__).resolve().parents[2]
SLUGIFY = str(ROOT / "examples" / "slugify_text.py")

TOOL = '''NAME = "sample_tool"
DESCRIPTION = "d"
PARAMS = {"type": "object",
          "properties": {"a": {"$ref": "#/$defs/x/anyOf/PART"}},
          "$defs": {"x": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}

def run(params):
    return {}
'''


@pytest.mark.parametrize("part", ["\u00b2", "\u0663", "9" * 5000, "01", "-1", "2", " 1", "1e3"])
def test_unreadable_pointer_part_is_a_clean_finding_at_the_reference(part: str) -> None:
    source = TOOL.replace("PART", part)
    report = check_source(source)
    assert [f.code for f in report.findings] == ["DT506"], report.findings
    finding = report.findings[0]
    assert "does not resolve" in finding.message
    assert len(finding.message) < 300  # 5,000 digits are not quoted in full
    line = source.splitlines()[finding.line - 1]
    assert line[finding.col - 1:].startswith('"#/$defs/x/anyOf/')


def test_a_valid_array_index_still_resolves() -> None:
    assert check_source(TOOL.replace("PART", "1")).findings == ()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_no_pointer_part_crashes_the_gate(part: str) -> None:
    source = TOOL.replace("PART", part.replace("\\", "\\\\").replace('"', '\\"'))
    report = check_source(source)
    assert "DT902" not in report.codes, report.findings


DEEP = '{"a": ' + "[" * 50_000 + "]" * 50_000 + "}"



@pytest.mark.parametrize("command", [
    ["exec", SLUGIFY, "--params", DEEP],
    ["call", "slugify_text", "--params", DEEP],
    ["ensure", "slugify_text", "--params", DEEP],
    ["ensure", "slugify_text", "--schema", DEEP],
    ["ensure", "slugify_text", "--example", DEEP],
])
def test_deep_params_are_a_usage_error_on_the_command_line(command: list[str],
                                                           tmp_path: Path) -> None:
    done = dyntools(*command, "--registry", str(tmp_path / "reg"), cwd=tmp_path) \
        if command[0] != "exec" else dyntools(*command, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and f"nests deeper than {MAX_PARAMS_DEPTH} levels" in errors[0]
    assert done.stdout == ""


def test_depth_limit_is_exact() -> None:
    ok = json.loads("[" * MAX_PARAMS_DEPTH + "]" * MAX_PARAMS_DEPTH)
    assert not nesting_depth_exceeds(ok)
    assert nesting_depth_exceeds([ok])
    assert parse_json_text(json.dumps({"a": 1}), "--params") == {"a": 1}
    with pytest.raises(UsageError, match="not valid JSON"):
        parse_json_text("{", "--params")
    with pytest.raises(UsageError, match="nests deeper"):
        parse_json_text(DEEP, "--params")
