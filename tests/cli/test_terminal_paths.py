"""Issue 9, finding 6: every terminal path escapes tool-controlled text. `check`, `exec`,
`ensure` and `call` printed bidi overrides and C1 controls (CSI, OSC) from a file's strings
inside findings (jsonschema messages quote schema and params values); through the real CLI,
nothing of C0 (but newline and tab), C1, bidi, invisible or TAG characters reaches stdout or
stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from dyntools.base.hidden_text import hidden_character_class
from dyntools.base.terminal import terminal_safe
from tests.support.cli import dyntools

# A pure-ASCII file: every hidden character is an escape the gate's findings quote back.
HOSTILE = r'''"""A tool."""
NAME = "sample_tool"
DESCRIPTION = "Echoes.\u202e\U000e0041"
PARAMS = {"type": "object",
          "properties": {"text": {"type": "string",
                                  "pattern": "\x1b]52;c;cHduZWQ=\x07\u009b2J\u202e(",
                                  "description": "\u2066x\u00ad\ue000"}}}


def run(params):
    return {"out": params["text"]}
'''

GOOD = '''"""A tool."""
NAME = "sample_tool"
DESCRIPTION = "Echoes."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [{"params": {"text": "a"}, "result": {"out": "a"}}]


def run(params):
    return {"out": params["text"]}
'''


def hidden(text: str) -> list[str]:
    return [f"U+{ord(ch):04X}" for ch in text
            if ch not in "\t\n" and hidden_character_class(ch) is not None]



@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    path = tmp_path / "sample_tool.py"
    path.write_text(HOSTILE, encoding="ascii")
    return path


@pytest.mark.parametrize("command", [
    ["check"], ["exec", "--params", '{"text": "a"}'],
    ["ensure", "sample_tool", "--generator", "file", "--registry", "reg", "--from"],
])
def test_findings_reach_the_terminal_escaped(command: list[str], hostile: Path,
                                             tmp_path: Path) -> None:
    args = [*command, str(hostile)] if command[0] != "exec" else \
        ["exec", str(hostile), *command[1:]]
    done = dyntools(*args, cwd=tmp_path)
    assert done.returncode not in (0, 2), done.stderr
    shown = done.stdout + done.stderr
    assert "DT506" in shown and "DT510" in shown and "DT511" in shown
    assert hidden(shown) == [], hidden(shown)
    assert "\\x9b2J\\u202e(" in shown  # jsonschema quoted them raw: now escapes


def test_params_quoted_by_validation_reach_the_terminal_escaped(tmp_path: Path) -> None:
    path = tmp_path / "sample_tool.py"
    path.write_text(GOOD, encoding="ascii")
    made = dyntools("ensure", "sample_tool", "--generator", "file", "--from", str(path),
                    "--registry", "reg", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    bad = '{"text": ["\\u001b]0;title\\u0007", "\\u009b2J\\u202e\\udb40\\udc41"]}'
    done = dyntools("call", "sample_tool", "--registry", "reg", "--params", bad, cwd=tmp_path)
    assert done.returncode != 0
    assert "\\x9b2J\\u202e\\U000e0041" in done.stderr
    assert hidden(done.stdout + done.stderr) == []
    ok = dyntools("call", "sample_tool", "--registry", "reg", "--params",
                  '{"text": "\\u001b[2J\\u202e"}', cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert hidden(ok.stdout) == []  # the result is JSON: escaped by the encoder


def test_path_arguments_are_escaped(tmp_path: Path) -> None:
    name = "evil\x1b]0;x\x07\u202e.py"
    (tmp_path / name).write_text(HOSTILE, encoding="ascii")
    done = dyntools("check", name, cwd=tmp_path)
    assert hidden(done.stdout + done.stderr) == []
    missing = dyntools("check", "gone\x1b[2J.py", cwd=tmp_path)
    assert missing.returncode == 2 and hidden(missing.stderr) == []


@pytest.mark.parametrize("char", ["\x1b", "\x07", "\x9b", "\x85", "\u202e", "\u2066",
                                  "\U000e0041", "\u200b", "\u00ad", "\u2028", "\ue000",
                                  "\ufeff", "\r", "\x7f"])
def test_terminal_safe_escapes_every_class(char: str) -> None:
    shown = terminal_safe(f"a{char}b")
    assert shown == "a" + char.encode("unicode_escape").decode("ascii") + "b"
    assert hidden(shown) == []


def test_terminal_safe_keeps_ordinary_text() -> None:
    text = "Crème brûlée\tà la carte\n日本語 😀 ∑"
    assert terminal_safe(text) == text


NORMALISER = r'''"""Normalises line endings."""
NAME = "line_endings"
DESCRIPTION = "Turns CRLF and CR line endings into LF."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [{"params": {"text": "a\r\nb\rc"}, "result": {"text": "a\nb\nc", "had": "\r"}}]


def run(params):
    text = params["text"]
    return {"text": text.replace("\r\n", "\n").replace("\r", "\n"), "had": "\r"}
'''


def test_a_carriage_return_in_examples_is_accepted_and_printed_as_an_escape(
        tmp_path: Path) -> None:
    """Issue 27: CR is text in EXAMPLES; `check`, `show`, `review` and `call` print it as
    `\\r`, never raw (a raw one would rewrite the line it ends)."""
    path = tmp_path / "line_endings.py"
    path.write_text(NORMALISER, encoding="ascii")
    checked = dyntools("check", str(path), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    made = dyntools("ensure", "line_endings", "--generator", "file", "--from", str(path),
                    "--registry", "reg", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    shown = dyntools("show", "line_endings", "--registry", "reg", cwd=tmp_path)
    reviewed = dyntools("review", "--registry", "reg", cwd=tmp_path)
    called = dyntools("call", "line_endings", "--registry", "reg", "--params",
                      '{"text": "x\\r\\ny"}', cwd=tmp_path)
    for done in (shown, reviewed, called):
        assert done.returncode == 0, done.stderr
        assert "\r" not in done.stdout + done.stderr
    assert '"a\\r\\nb\\rc"' in shown.stdout
    assert called.stdout == '{"text": "x\\ny", "had": "\\r"}\n'
