"""`dyntools exec` never writes a tool's control characters to the operator's terminal.

A tool's printed output and exception message are tool-controlled: ESC starts ANSI/OSC
sequences that can rewrite what the screen shows, retitle the window or write the clipboard
(red team R1). The CLI shows them as escapes; the JSON modes were already escaped.
"""

from __future__ import annotations

import subprocess

from tests.support.cli import dyntools

ESCAPES = '''
def run(params):
    print(chr(27) + "]52;c;cHduZWQ=" + chr(7) + chr(27) + "[2J" + chr(0x202E) + "ok")
    if params.get("fail"):
        raise ValueError(chr(27) + "]0;title" + chr(7) + "bad")
    return {"done": True}
'''


def exec_tool(path: str, params: str) -> subprocess.CompletedProcess[str]:
    return dyntools("exec", path, "--params", params, timeout=60)


def test_tool_output_and_errors_reach_the_terminal_escaped(tool):
    path = str(tool(ESCAPES))
    done = exec_tool(path, "{}")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr and "\u202e" not in done.stderr
    assert "\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\u202eok" in done.stderr
    failed = exec_tool(path, '{"fail": true}')
    assert failed.returncode == 4
    assert "\x1b" not in failed.stderr and "\\x1b]0;title\\x07bad" in failed.stderr
