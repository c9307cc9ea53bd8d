"""`dyntools check`: output formats, exit codes, stdin and custom policies.

Most tests drive the click command in process (fast); one runs the installed entry point as a
subprocess so `python -m dyntools` itself stays covered.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dyntools import __version__
from dyntools.cli import main
from dyntools.gate import check_source, load_policy
from dyntools.gate.findings import RULES, render_text

REPO = Path(__file__).resolve().parents[2]
SLUGIFY = (REPO / "dyntools" / "generators" / "templates" / "slugify_text.py").read_text("utf-8")
DEFAULT_ALLOWLIST = (REPO / "allowlist.toml").read_text("utf-8")
EVIL = SLUGIFY.replace("    return {", "    eval(params['text'])\n    return {")
EVIL_LINE = EVIL.splitlines().index("    eval(params['text'])") + 1
TEXT_LINE = re.compile(r"^(?P<path>.+?):(?P<line>[1-9]\d*):(?P<col>[1-9]\d*): (?P<code>DT\d{3}) \S.*$")


@pytest.fixture
def tools(tmp_path: Path) -> dict[str, Path]:
    paths = {"good": tmp_path / "good.py", "evil": tmp_path / "evil.py"}
    paths["good"].write_text(SLUGIFY, "utf-8")
    paths["evil"].write_text(EVIL, "utf-8")
    return paths


def check(*args: str, stdin: str | bytes | None = None, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, ["check", *args], input=stdin, env=env)


# ---------------------------------------------------------------------------- text
def test_accepted_file_exits_zero(tools: dict[str, Path]) -> None:
    result = check(str(tools["good"]))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{tools['good']}: accepted\n"


def test_rejected_file_prints_file_line_col_code_message(tools: dict[str, Path]) -> None:
    result = check(str(tools["evil"]))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines == [
        f"{tools['evil']}:{EVIL_LINE}:5: DT401 eval is not allowed: "
        "eval executes a string as Python code"
    ]
    assert result.stdout.rstrip("\n") == render_text(check_source(EVIL, path=str(tools["evil"])))


def test_every_text_line_has_the_canonical_shape(tmp_path: Path) -> None:
    source = EVIL.replace("import re\n", "import re\nimport os\n") + "class A:\n    pass\n"
    path = tmp_path / "many.py"
    path.write_text(source, "utf-8")
    result = check(str(path))
    assert result.exit_code == 1
    codes = []
    for line in result.stdout.splitlines():
        match = TEXT_LINE.match(line)
        assert match, line
        assert match["path"] == str(path)
        codes.append(match["code"])
    assert {"DT201", "DT401", "DT102"} <= set(codes)
    assert set(codes) <= set(RULES)


def test_several_files_one_bad_exits_one(tools: dict[str, Path]) -> None:
    result = check(str(tools["good"]), str(tools["evil"]), str(tools["good"]))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == f"{tools['good']}: accepted"
    assert lines[1].startswith(f"{tools['evil']}:{EVIL_LINE}:5: DT401 ")
    assert lines[2] == f"{tools['good']}: accepted"


def test_several_good_files_exit_zero(tools: dict[str, Path]) -> None:
    assert check(str(tools["good"]), str(tools["good"])).exit_code == 0


# ---------------------------------------------------------------------------- stdin
def test_stdin_dash_reads_standard_input() -> None:
    result = check("-", stdin=EVIL)
    assert result.exit_code == 1
    assert result.stdout.startswith(f"<stdin>:{EVIL_LINE}:5: DT401 ")


def test_stdin_accepted() -> None:
    result = check("-", stdin=SLUGIFY.encode("utf-8"))
    assert result.exit_code == 0
    assert result.stdout == "<stdin>: accepted\n"


def test_stdin_alongside_files(tools: dict[str, Path]) -> None:
    result = check(str(tools["good"]), "-", stdin=EVIL)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == f"{tools['good']}: accepted"


# ---------------------------------------------------------------------------- json
def test_json_shape(tools: dict[str, Path]) -> None:
    result = check("--json", str(tools["good"]), str(tools["evil"]))
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert set(payload) == {"accepted", "files"}
    assert payload["accepted"] is False
    good, evil = payload["files"]
    assert set(good) == {"path", "sha256", "accepted", "policy_digest", "findings"}
    assert good == {
        "path": str(tools["good"]),
        "sha256": hashlib.sha256(SLUGIFY.encode("utf-8")).hexdigest(),
        "accepted": True,
        "policy_digest": load_policy().digest,
        "findings": [],
    }
    assert evil["accepted"] is False
    (finding,) = evil["findings"]
    assert finding == {
        "code": "DT401",
        "family": "calls",
        "rule": RULES["DT401"].title,
        "line": EVIL_LINE,
        "col": 5,
        "end_line": None,
        "end_col": None,
        "message": "eval is not allowed: eval executes a string as Python code",
    }


def test_json_flag_and_format_json_agree(tools: dict[str, Path]) -> None:
    flag = check("--json", str(tools["evil"]))
    option = check("--format", "json", str(tools["evil"]))
    assert flag.exit_code == option.exit_code == 1
    assert json.loads(flag.stdout) == json.loads(option.stdout)


def test_json_accepted_exit_zero(tools: dict[str, Path]) -> None:
    result = check("--format", "json", str(tools["good"]))
    assert result.exit_code == 0
    assert json.loads(result.stdout)["accepted"] is True


# ---------------------------------------------------------------------------- sarif
def test_sarif_format(tools: dict[str, Path]) -> None:
    result = check("--format", "sarif", str(tools["good"]), str(tools["evil"]))
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "dyntools"
    assert run["tool"]["driver"]["version"] == __version__
    (only,) = run["results"]
    assert only["ruleId"] == "DT401"
    assert only["locations"][0]["physicalLocation"]["region"] == {
        "startLine": EVIL_LINE,
        "startColumn": 5,
    }


def test_sarif_accepted_has_no_results_and_exits_zero(tools: dict[str, Path]) -> None:
    result = check("--format", "sarif", str(tools["good"]))
    assert result.exit_code == 0
    assert json.loads(result.stdout)["runs"][0]["results"] == []


def test_unknown_format_is_a_usage_error(tools: dict[str, Path]) -> None:
    result = check("--format", "xml", str(tools["good"]))
    assert result.exit_code == 2


# ---------------------------------------------------------------------------- policies
def write_policy(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(text, "utf-8")
    return path


def test_custom_allowlist_changes_the_verdict(tmp_path: Path, tools: dict[str, Path]) -> None:
    """A policy without `re` refuses the slugify tool that the default policy accepts."""
    without_re = re.sub(r"(?ms)^\[modules\.re\]\n.*?(?=^\[)", "", DEFAULT_ALLOWLIST)
    without_re = re.sub(r"(?ms)^\[modules\.re\.excluded\]\n.*?(?=^\[)", "", without_re)
    assert "[modules.re]" not in without_re
    policy = write_policy(tmp_path, without_re)
    result = check("--allowlist", str(policy), "--json", str(tools["good"]))
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)["files"][0]
    assert {f["code"] for f in report["findings"]} == {"DT201"}
    assert report["policy_digest"] == hashlib.sha256(without_re.encode("utf-8")).hexdigest()


def test_custom_allowlist_limits(tmp_path: Path, tools: dict[str, Path]) -> None:
    tiny = DEFAULT_ALLOWLIST.replace("max_bytes = 262144", "max_bytes = 100")
    policy = write_policy(tmp_path, tiny)
    result = check("--allowlist", str(policy), str(tools["good"]))
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{tools['good']}:1:1: DT008 ")


def test_allowlist_from_the_environment(tmp_path: Path, tools: dict[str, Path]) -> None:
    tiny = DEFAULT_ALLOWLIST.replace("max_bytes = 262144", "max_bytes = 100")
    policy = write_policy(tmp_path, tiny)
    result = check(str(tools["good"]), env={"DYNTOOLS_ALLOWLIST": str(policy)})
    assert result.exit_code == 1
    assert " DT008 " in result.stdout


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("[limits\nmax_bytes = 1\n", "policy.toml"),
        ("[limits]\nmax_bytes = -1\nmax_nodes = 10\nmax_depth = 10\n", "max_bytes"),
        ("[limits]\nmax_bytes = 10\nmax_nodes = 10\n", "max_depth"),
        (DEFAULT_ALLOWLIST.replace("max_depth = 100", 'max_depth = "deep"'), "max_depth"),
        (DEFAULT_ALLOWLIST + '\n[modules.evil]\nmembers = "all"\n', "modules.evil.members"),
        ("\xff not toml at all", "policy.toml"),
    ],
    ids=["bad-toml", "negative-limit", "missing-limit", "string-limit", "members-not-list", "junk"],
)
def test_malformed_policy_is_a_usage_error(
    tmp_path: Path, tools: dict[str, Path], text: str, quoted: str
) -> None:
    policy = write_policy(tmp_path, text)
    result = check("--allowlist", str(policy), str(tools["good"]))
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Error:" in result.stderr
    assert quoted in result.stderr
    assert result.stdout == ""


def test_policy_that_is_not_utf8(tmp_path: Path, tools: dict[str, Path]) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_bytes(b"[limits]\nmax_bytes = 1 # \xff\n")
    result = check("--allowlist", str(policy), str(tools["good"]))
    assert result.exit_code == 2
    assert str(policy) in result.stderr


def test_missing_policy_is_a_usage_error(tmp_path: Path, tools: dict[str, Path]) -> None:
    result = check("--allowlist", str(tmp_path / "none.toml"), str(tools["good"]))
    assert result.exit_code == 2
    assert "none.toml" in result.stderr


# ---------------------------------------------------------------------------- usage
def test_missing_file_is_exit_two(tmp_path: Path) -> None:
    result = check(str(tmp_path / "absent.py"))
    assert result.exit_code == 2
    assert "absent.py" in result.stderr


def test_no_files_is_exit_two() -> None:
    assert check().exit_code == 2


def test_help() -> None:
    result = check("--help")
    assert result.exit_code == 0
    assert "--format" in result.stdout
    assert "--allowlist" in result.stdout


def test_python_dash_m_entry_point(tools: dict[str, Path]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dyntools", "check", str(tools["good"]), str(tools["evil"])],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines()[0] == f"{tools['good']}: accepted"
    assert result.stdout.splitlines()[1].startswith(f"{tools['evil']}:{EVIL_LINE}:5: DT401 ")
