"""`dyntools check FILE...`: the gate alone. Exit 0 accepted, 1 rejected, 2 usage.

`--script` checks each file as a code-mode script (docs/codemode.md): the same rules, codes,
lines and columns, text, JSON and SARIF, minus the rules about tool metadata and module
structure, plus the script's own (tool-call form, `result` bound, reserved names)."""

from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

import click

from dyntools import __version__
from dyntools.base.regular_files import NotRegularFile, open_regular
from dyntools.base.terminal import terminal_safe
from dyntools.cli.app import main
from dyntools.cli.options import allowlist_click, policy_option
from dyntools.gate import check_script, check_source, read_bounded
from dyntools.gate.findings import json_document, render_text, to_sarif

if TYPE_CHECKING:
    from dyntools.gate import Policy
    from dyntools.gate.findings import GateReport

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2
CHECK_GC_THRESHOLD = (100_000, 20, 20)
FORMATS = ("text", "json", "sarif")


class CheckArguments(NamedTuple):
    files: tuple[str, ...]
    output: str
    allowlist: str | None
    script: bool = False


def read_source(name: str, limit: int, stdin: BinaryIO | None = None) -> bytes:
    """Read at most `limit + 1` bytes (one more than allowed shows the file is too large);
    `-` is standard input. A path that is not a regular file (checked on what was opened:
    dyntools/base/regular_files.py) or cannot be read is a UsageError."""
    if name == "-":
        stream = stdin or sys.stdin.buffer
        return stream.read(limit + 1)
    try:
        with open_regular(name) as handle:
            return read_bounded(handle, os.fstat(handle.fileno()).st_size, limit)
    except NotRegularFile as exc:
        if exc.kind == "folder":
            raise click.UsageError(f"{terminal_safe(name)}: is a directory; pass tool files"
                                   ) from None
        raise click.UsageError(f"{terminal_safe(name)}: {exc.strerror}") from None
    except OSError as exc:
        raise click.UsageError(f"{terminal_safe(name)}: {exc.strerror or exc}") from None


def check_files(arguments: CheckArguments) -> tuple[str, int]:
    """The text to print and the exit code (EXIT_ACCEPTED or EXIT_REJECTED); raises click's
    UsageError (an allow-list that does not load, a file it cannot read) before printing.

    Each report is rendered as it is made and then dropped: a report holds its file's source
    lines, and keeping 2,116 of them doubled the check's peak memory (63 MB, now 30) for
    text the output never shows (SARIF keeps the refused files' reports whole: their lines
    give each finding's UTF-16 column)."""
    policy = policy_option(arguments.allowlist)
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
        check = check_script if arguments.script else check_source
        report = check(data, policy, path="<stdin>" if name == "-" else name)
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
    else:
        import json

        document = (json_document(files, accepted) if output == "json"
                    else to_sarif(refused, __version__))
        text = json.dumps(document, indent=2)
    return text, EXIT_ACCEPTED if accepted else EXIT_REJECTED


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print findings as JSON.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Output format (default text; sarif is SARIF 2.1.0 for code scanning).",
)
@allowlist_click
@click.option("--script", is_flag=True,
              help="Check FILES as code-mode scripts (what `dyntools run` takes), not tool "
                   "files.")
def check(files: tuple[str, ...], as_json: bool, fmt: str | None, allowlist: str | None,
          script: bool) -> None:
    """Run the static gate on tool FILES ('-' reads standard input)."""
    output = "json" if as_json and fmt is None else (fmt or "text")
    text, code = check_files(CheckArguments(files, output, allowlist, script))
    click.echo(text)
    sys.exit(code)
