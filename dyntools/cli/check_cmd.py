"""`dyntools check FILE...`: the gate alone. Exit 0 accepted, 1 rejected, 2 usage."""

from __future__ import annotations

import sys
from typing import BinaryIO

import click

from dyntools.cli.app import main
from dyntools.cli.check_run import FORMATS, CheckArguments, check_files
from dyntools.cli.check_run import read_source as _read_source
from dyntools.cli.options import as_usage_error


def read_source(name: str, limit: int, stdin: BinaryIO | None = None) -> bytes:
    """check_run.read_source for a click command: a file it cannot read is a UsageError."""
    return as_usage_error(_read_source, name, limit, stdin)


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
@click.option(
    "--allowlist",
    type=click.Path(dir_okay=False),
    default=None,
    help="Policy file (default: DYNTOOLS_ALLOWLIST, else the shipped allowlist.toml).",
)
def check(files: tuple[str, ...], as_json: bool, fmt: str | None, allowlist: str | None) -> None:
    """Run the static gate on tool FILES ('-' reads standard input)."""
    output = "json" if as_json and fmt is None else (fmt or "text")
    text, code = as_usage_error(check_files, CheckArguments(files, output, allowlist))
    click.echo(text)
    sys.exit(code)
