"""`dyntools check`'s work, without click: read the files, run the gate, print the reports.

`dyntools check` is the command a researcher runs once per file, so its start-up is most of
its cost, and click's import (~10 ms: inspect, uuid, platform, gettext) is a third of it.
`run()` in `dyntools.cli` sends an ordinary check command line here (`fast_arguments`: files,
`--json`, `--format text|json|sarif`, `--allowlist PATH`, `--`); everything else (`--help`,
an unknown option, a bad format, a directory given as the allow-list, no file) goes to the
click command in check_cmd.py, which does the same work through `check_files` and owns every
usage message. A usage error found while working (a missing file) is shown by click too, so
both ways print the same text; a test runs both on the same command lines.
"""

from __future__ import annotations

import gc
import os
import stat
import sys
from typing import TYPE_CHECKING, NamedTuple

from dyntools import __version__
from dyntools.base import interrupts
from dyntools.base.terminal import terminal_safe
from dyntools.cli.plain_args import read_plain
from dyntools.cli.values import OptionValueError, policy_value
from dyntools.gate import check_source, read_bounded
from dyntools.gate.findings import json_document, render_text, to_sarif

if TYPE_CHECKING:
    from typing import Any, BinaryIO

    from dyntools.gate import Policy
    from dyntools.gate.findings import GateReport

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2
CHECK_GC_THRESHOLD = (100_000, 20, 20)
FORMATS = ("text", "json", "sarif")


class CheckUsageError(OptionValueError):
    """A command line the check cannot act on (a file it cannot read); `message` is click's
    UsageError text. An allow-list that does not load is values.py's OptionValueError."""


class CheckArguments(NamedTuple):
    files: tuple[str, ...]
    output: str
    allowlist: str | None


def fast_arguments(argv: list[str]) -> CheckArguments | None:
    """The arguments after `check`, when they are plain enough to need no click; None for
    anything else (click then parses them, and says what is wrong)."""
    parsed = read_plain(argv, flags=frozenset({"--json"}), takes={
        "--format": FORMATS.__contains__,
        # click refuses a folder (dir_okay=False); an empty value it names as missing
        "--allowlist": lambda value: bool(value) and not os.path.isdir(value),
    })
    if parsed is None or not parsed[0]:
        return None
    files, values = parsed
    fmt, allowlist = values.get("--format"), values.get("--allowlist")
    assert fmt is None or isinstance(fmt, str)
    assert allowlist is None or isinstance(allowlist, str)
    output = "json" if values.get("--json") and fmt is None else (fmt or "text")
    return CheckArguments(tuple(files), output, allowlist)


def read_source(name: str, limit: int, stdin: BinaryIO | None = None) -> bytes:
    """Read at most `limit + 1` bytes (one more than allowed shows the file is too large)."""
    if name == "-":
        stream = stdin or sys.stdin.buffer
        return stream.read(limit + 1)
    try:
        status = os.stat(name)
        mode = status.st_mode
    except OSError as exc:
        raise CheckUsageError(f"{terminal_safe(name)}: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(mode):
        raise CheckUsageError(f"{terminal_safe(name)}: is a directory; pass tool files")
    if not stat.S_ISREG(mode):
        raise CheckUsageError(f"{terminal_safe(name)}: not a regular file")
    try:
        with open(name, "rb") as handle:
            return read_bounded(handle, status.st_size, limit)
    except OSError as exc:
        raise CheckUsageError(f"{terminal_safe(name)}: {exc.strerror or exc}") from exc


def check_files(arguments: CheckArguments) -> tuple[str, int]:
    """The text to print and the exit code (EXIT_ACCEPTED or EXIT_REJECTED); raises
    OptionValueError (CheckUsageError for a file) before printing anything.

    Each report is rendered as it is made and then dropped: a report holds its file's source
    lines, and keeping 2,116 of them doubled the check's peak memory (63 MB, now 30) for
    text the output never shows (SARIF keeps the refused files' reports whole: their lines
    give each finding's UTF-16 column)."""
    policy = policy_value(arguments.allowlist)
    saved = gc.get_threshold()
    # The collector's default (a young collection per 700 new objects) scans each file's
    # syntax tree several times while it lives, ~6% of a many-file check; the gate leaves no
    # cycles (tests/gate/test_garbage.py), so a collection finds nothing to free. As mypy
    # does, collect rarely while checking; cycles from elsewhere are still collected.
    gc.set_threshold(*CHECK_GC_THRESHOLD)
    try:
        return _check_all(arguments, policy)
    finally:
        gc.set_threshold(*saved)


def _check_all(arguments: CheckArguments, policy: Policy) -> tuple[str, int]:
    output = arguments.output
    texts: list[str] = []
    files: list[dict[str, Any]] = []
    refused: list[GateReport] = []
    accepted = True
    for name in arguments.files:
        data = read_source(name, policy.limits.max_bytes)
        report = check_source(data, policy, path="<stdin>" if name == "-" else name)
        accepted = accepted and report.accepted
        if output == "json":
            files.append(report.as_dict())
        elif output == "sarif":
            if not report.accepted:  # an accepted file adds no SARIF result
                refused.append(report)
        else:
            texts.append(f"{terminal_safe(report.path)}: accepted" if report.accepted
                         else render_text(report))
    if output == "text":
        text = "\n".join(texts)
    else:  # json only here: a text check never imports it (nor the `re` it brings)
        import json

        document = (json_document(files, accepted) if output == "json"
                    else to_sarif(refused, __version__))
        text = json.dumps(document, indent=2)
    return text, EXIT_ACCEPTED if accepted else EXIT_REJECTED


def run_fast(arguments: CheckArguments) -> int:
    """The check command without click (see the module's docstring); the exit code."""
    interrupts.install()
    try:
        text, code = check_files(arguments)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`dyntools check *.py | head -1`): exit 1 quietly, as click
        # does, and let the interpreter's own flush at exit write nowhere.
        from dyntools.cli import reader_gone

        return reader_gone()
    except OptionValueError as exc:
        from dyntools.cli.values import show_usage_error

        return show_usage_error("check", exc.message)
    except KeyboardInterrupt as exc:
        code = interrupts.exit_code_for(exc)
        from dyntools.cli import report_interrupt

        report_interrupt("check", code)
    finally:
        interrupts.finishing()
    return code
