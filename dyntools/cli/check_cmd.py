"""`dyntools check FILE...`: the gate alone. Exit 0 accepted, 1 rejected, 2 usage."""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import BinaryIO

import click

from dyntools import __version__
from dyntools.cli.app import main
from dyntools.errors import PolicyLoadError
from dyntools.findings import GateReport, render_text, to_json, to_sarif
from dyntools.gate import check_source, read_bounded
from dyntools.gate.policy import Policy
from dyntools.policyload import load_allowlist
from dyntools.terminal import terminal_safe

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2


def read_source(name: str, limit: int, stdin: BinaryIO | None = None) -> bytes:
    """Read at most `limit + 1` bytes (one more than allowed shows the file is too large)."""
    if name == "-":
        stream = stdin or sys.stdin.buffer
        return stream.read(limit + 1)
    try:
        status = os.stat(name)
        mode = status.st_mode
    except OSError as exc:
        raise click.UsageError(f"{terminal_safe(name)}: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(mode):
        raise click.UsageError(f"{terminal_safe(name)}: is a directory; pass tool files")
    if not stat.S_ISREG(mode):
        raise click.UsageError(f"{terminal_safe(name)}: not a regular file")
    try:
        with open(name, "rb") as handle:
            return read_bounded(handle, status.st_size, limit)
    except OSError as exc:
        raise click.UsageError(f"{terminal_safe(name)}: {exc.strerror or exc}") from exc


def policy_option(path: str | None) -> Policy:
    try:
        return load_allowlist(path)
    except PolicyLoadError as exc:
        raise click.UsageError(terminal_safe(exc.message)) from exc


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print findings as JSON.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "sarif"]),
    default=None,
    help="Output format (default text; sarif is SARIF 2.1.0 for code scanning).",
)
@click.option(
    "--allowlist",
    type=click.Path(dir_okay=False),
    default=None,
    help="Policy file (default: DYNTOOLS_ALLOWLIST, else the shipped allowlist.toml).",
)
def check(files: tuple[str, ...], as_json: bool, fmt: str | None, allowlist: str | None) -> None:
    """Run the static gate on tool FILES ('-' reads standard input)."""
    output = "json" if as_json and fmt is None else (fmt or "text")
    policy = policy_option(allowlist)
    reports: list[GateReport] = []
    for name in files:
        data = read_source(name, policy.limits.max_bytes)
        reports.append(check_source(data, policy, path="<stdin>" if name == "-" else name))
    if output == "json":
        click.echo(json.dumps(to_json(reports), indent=2))
    elif output == "sarif":
        click.echo(json.dumps(to_sarif(reports, __version__), indent=2))
    else:
        for report in reports:
            if report.accepted:
                click.echo(f"{terminal_safe(report.path)}: accepted")
            else:
                click.echo(render_text(report))
    sys.exit(EXIT_ACCEPTED if all(r.accepted for r in reports) else EXIT_REJECTED)
