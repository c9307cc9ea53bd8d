"""Bad input of every kind gets a clean finding or a usage error: never a traceback or a hang.

Each input goes through `check_source` and through the real command line in a subprocess.
The subprocess timeouts are hang detectors, not speed assertions (speed lives in bench/).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from dyntools.gate import check_source, load_policy
from dyntools.gate.findings import RULES
from tests.support.cli import dyntools
from tests.support.environment import lacking

REPO = Path(__file__).resolve().parents[2]
SLUGIFY = (REPO / "dyntools" / "generators" / "templates" / "slugify_text.py").read_bytes()
POLICY = load_policy()
HANG = 60  # seconds: far beyond any honest run, short enough to fail a stuck one
TEXT_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>DT\d{3}) (?P<msg>.+)$")


@dataclass(frozen=True)
class Bad:
    name: str
    data: Callable[[], bytes]
    codes: frozenset[str]  # the report must hold at least one of these

    def __str__(self) -> str:
        return self.name


def nested_blocks(depth: int) -> bytes:
    lines = [b"    " * i + b"if params:" for i in range(depth)]
    return b"\n".join([*lines, b"    " * depth + b"pass", b""])


def with_line_endings(source: bytes, ending: bytes) -> bytes:
    return source.replace(b"\n", ending)


BAD_INPUTS = (
    # size and complexity: the parser's limits become clean findings
    Bad("ten_megabytes", lambda: b"x = 1\n" * (10 * 1024 * 1024 // 6), frozenset({"DT008"})),
    Bad("nested_brackets", lambda: b"x = " + b"(" * 100_000 + b")" * 100_000, frozenset({"DT010"})),
    Bad("nested_lists", lambda: b"x = " + b"[" * 100_000 + b"]" * 100_000, frozenset({"DT010"})),
    Bad("long_sum", lambda: b"x = " + b"+".join([b"1"] * 100_000), frozenset({"DT010"})),
    Bad("unary_chain", lambda: b"x = " + b"-" * 100_000 + b"1", frozenset({"DT010"})),
    Bad("not_chain", lambda: b"x = " + b"not " * 50_000 + b"1", frozenset({"DT010"})),
    Bad("attribute_chain", lambda: b"x = a" + b".b" * 5000, frozenset({"DT009", "DT010"})),
    Bad("call_chain", lambda: b"x = f" + b"()" * 20_000, frozenset({"DT009", "DT010"})),
    Bad("subscript_chain", lambda: b"x = a" + b"[0]" * 20_000, frozenset({"DT009", "DT010"})),
    Bad("nested_blocks", lambda: nested_blocks(150), frozenset({"DT010"})),
    Bad("many_statements", lambda: b"x = 1\n" * 40_000, frozenset({"DT009"})),
    Bad("long_line", lambda: b"X = '" + b"a" * 200_000 + b"'\n", frozenset({"DT501"})),
    # bytes and encodings
    Bad("binary", lambda: bytes(range(256)) * 16, frozenset({"DT001", "DT002"})),
    Bad("invalid_utf8", lambda: b"NAME = '\xff\xfe'\n", frozenset({"DT001"})),
    Bad("truncated_utf8", lambda: b"NAME = 'caf\xc3", frozenset({"DT001"})),
    Bad("overlong_utf8", lambda: b"NAME = '\xc0\xaf'\n", frozenset({"DT001"})),
    Bad("encoded_surrogate", lambda: b"NAME = '\xed\xb3\xbf'\n", frozenset({"DT001"})),
    Bad("nul_bytes", lambda: b"NAME = 'a'\x00\x00\n", frozenset({"DT002"})),
    Bad("only_nul", lambda: b"\x00", frozenset({"DT002"})),
    Bad("bom", lambda: b"\xef\xbb\xbf" + SLUGIFY, frozenset({"DT005"})),
    Bad("utf16_bom", lambda: "NAME = 'a'\n".encode("utf-16"), frozenset({"DT001", "DT002"})),
    Bad("coding_cookie_cr_only", lambda: b"#!x\r# coding: utf-7\rNAME = 'a'\r", frozenset({"DT003"})),
    Bad("form_feed_cookie", lambda: b"\x0c# coding: latin-1\nNAME = 'a'\n", frozenset({"DT003"})),
    Bad("escape_character", lambda: b"NAME = 'a'\x1b[2J\n", frozenset({"DT006"})),
    # emptiness
    Bad("empty", lambda: b"", frozenset({"DT012"})),
    Bad("whitespace", lambda: b"  \n\t\n   \n", frozenset({"DT012"})),
    Bad("only_comment", lambda: b"# nothing here\n", frozenset({"DT501"})),
    # syntax
    Bad("syntax_error", lambda: b"def run(params:\n", frozenset({"DT011"})),
    Bad("unterminated_string", lambda: b'X = """never closed\n', frozenset({"DT011"})),
    Bad("huge_int_literal", lambda: b"X = " + b"9" * 5000, frozenset({"DT011"})),
    # a lone CR ends a line for Python but not for many viewers: what a reviewer reads differs
    Bad("cr_only_line_endings", lambda: with_line_endings(SLUGIFY, b"\r"), frozenset({"DT006"})),
    Bad("cr_only_with_eval", lambda: with_line_endings(
        SLUGIFY.replace(b"    return", b"    eval('1')\n    return"), b"\r"
    ), frozenset({"DT006"})),
    Bad("one_lone_cr", lambda: SLUGIFY.replace(b"import re\n", b"import re\r"), frozenset({"DT006"})),
)

ACCEPTED_VARIANTS = {
    "lf": SLUGIFY,
    "crlf": with_line_endings(SLUGIFY, b"\r\n"),
    "no_final_newline": SLUGIFY.rstrip(b"\n"),
    "form_feed": SLUGIFY.replace(b"\ndef run", b"\n\x0c\ndef run"),
}


def materialise() -> dict[str, bytes]:
    return {bad.name: bad.data() for bad in BAD_INPUTS}


@pytest.fixture(scope="module")
def bad_bytes() -> dict[str, bytes]:
    return materialise()


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return dyntools("check", *args, stdin=stdin, text=False, timeout=HANG,
                    add_env={"PYTHONWARNINGS": "error::SyntaxWarning"})


def assert_clean(result: subprocess.CompletedProcess[bytes], exit_code: int) -> str:
    stderr = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr
    assert result.returncode == exit_code, (result.returncode, stderr, result.stdout[:2000])
    return result.stdout.decode("utf-8")


# ---------------------------------------------------------------------------- in process
@pytest.mark.parametrize("bad", BAD_INPUTS, ids=str)
def test_bad_input_gets_a_clean_finding(bad: Bad, bad_bytes: dict[str, bytes]) -> None:
    report = check_source(bad_bytes[bad.name], POLICY)
    assert not report.accepted
    assert report.codes & bad.codes, sorted(report.codes)
    assert "DT902" not in report.codes
    assert all(f.code in RULES and f.line >= 1 and f.col >= 1 for f in report.findings)


@pytest.mark.parametrize("variant", sorted(ACCEPTED_VARIANTS))
def test_line_ending_variants_of_a_good_tool_are_accepted(variant: str) -> None:
    assert check_source(ACCEPTED_VARIANTS[variant], POLICY).accepted


def test_crlf_findings_point_at_the_right_line() -> None:
    source = SLUGIFY.replace(b"    return", b"    eval('1')\n    return")
    eval_line = next(i for i, line in enumerate(source.split(b"\n"), 1) if b"eval" in line)
    report = check_source(with_line_endings(source, b"\r\n"), POLICY)
    assert [(f.line, f.col, f.code) for f in report.findings] == [(eval_line, 5, "DT401")]


@pytest.mark.parametrize(
    "text",
    [
        "NAME = '\udcff'\n",  # a lone surrogate has no UTF-8 form
        "\ud800",
        "x = 1\n\udfff",
    ],
)
def test_text_with_lone_surrogates_is_a_clean_finding(text: str) -> None:
    report = check_source(text, POLICY)
    assert report.codes == {"DT001"}


def test_surrogate_escapes_inside_string_literals_are_only_data() -> None:
    """`"\\udcff"` spelled as an escape is valid Python: no crash, whatever the verdict."""
    source = SLUGIFY.replace(b'{"slug": re.sub', b'{"raw": "\\udcff", "slug": re.sub')
    assert check_source(source, POLICY).accepted
    example = SLUGIFY.replace(b'"Hello World"}, "result"', b'"\\ud800"}, "result"')
    report = check_source(example, POLICY)
    assert "DT902" not in report.codes


def test_bytearray_input_is_bytes() -> None:
    assert check_source(bytearray(SLUGIFY), POLICY).accepted


# ---------------------------------------------------------------------------- command line
def test_cli_reports_every_bad_file_in_one_run(
    tmp_path: Path, bad_bytes: dict[str, bytes]
) -> None:
    paths = []
    for name, data in bad_bytes.items():
        path = tmp_path / f"{name}.py"
        path.write_bytes(data)
        paths.append(str(path))
    stdout = assert_clean(run_cli(*paths), exit_code=1)
    seen: dict[str, set[str]] = {}
    for line in stdout.splitlines():
        match = TEXT_LINE.match(line)
        assert match, f"not FILE:LINE:COL: CODE message: {line!r}"
        seen.setdefault(Path(match["path"]).stem, set()).add(match["code"])
    for bad in BAD_INPUTS:
        assert seen.get(bad.name, set()) & bad.codes, (bad.name, seen.get(bad.name))


def test_cli_accepts_line_ending_variants(tmp_path: Path) -> None:
    paths = []
    for name, data in ACCEPTED_VARIANTS.items():
        path = tmp_path / f"{name}.py"
        path.write_bytes(data)
        paths.append(str(path))
    stdout = assert_clean(run_cli(*paths), exit_code=0)
    assert stdout.splitlines() == [f"{p}: accepted" for p in paths]


def test_cli_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli(str(tmp_path))
    assert_clean(result, exit_code=2)
    assert b"is a directory" in result.stderr


def test_cli_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.py"
    result = run_cli(str(missing))
    assert_clean(result, exit_code=2)
    assert str(missing).encode() in result.stderr


def test_cli_good_file_then_missing_file_is_still_a_usage_error(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_bytes(SLUGIFY)
    assert_clean(run_cli(str(good), str(tmp_path / "gone.py")), exit_code=2)


def test_cli_device_is_not_a_regular_file() -> None:
    result = run_cli(os.devnull)
    assert_clean(result, exit_code=2)
    assert b"not a regular file" in result.stderr


def test_cli_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """Opening a FIFO with no writer would block for ever; the CLI must not open it."""
    if not hasattr(os, "mkfifo"):
        lacking("needs named pipes")
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    assert_clean(run_cli(str(fifo)), exit_code=2)


def test_cli_no_arguments_is_a_usage_error() -> None:
    assert_clean(run_cli(), exit_code=2)


def test_cli_ten_megabytes_on_stdin(bad_bytes: dict[str, bytes]) -> None:
    """The CLI reads one byte past the limit and stops; the writer's broken pipe is fine."""
    stdout = assert_clean(run_cli("-", stdin=bad_bytes["ten_megabytes"]), exit_code=1)
    assert stdout.startswith("<stdin>:1:1: DT008 ")


@pytest.mark.parametrize("name", ["binary", "empty", "nested_brackets", "invalid_utf8", "bom"])
def test_cli_bad_input_on_stdin(name: str, bad_bytes: dict[str, bytes]) -> None:
    stdout = assert_clean(run_cli("-", stdin=bad_bytes[name]), exit_code=1)
    codes = {m["code"] for m in map(TEXT_LINE.match, stdout.splitlines()) if m}
    bad = next(b for b in BAD_INPUTS if b.name == name)
    assert codes & bad.codes


def test_cli_empty_stdin() -> None:
    stdout = assert_clean(run_cli("-", stdin=b""), exit_code=1)
    assert stdout.strip() == "<stdin>:1:1: DT012 the file is empty"
