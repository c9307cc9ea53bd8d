"""`dyntools check FILE...`: the gate alone. Exit 0 accepted, 1 rejected, 2 usage."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, BinaryIO

import click

from dyntools.cli.app import main
from dyntools.cli.check_run import (
    FORMATS,
    CheckArguments,
    CheckUsageError,
    check_files,
    load_check_policy,
)
from dyntools.cli.check_run import read_source as _read_source

if TYPE_CHECKING:
    from dyntools.gate.policy import Policy


@contextlib.contextmanager
def _usage_errors() -> Iterator[None]:
    """check_run's CheckUsageError as click's UsageError (same message)."""
    try:
        yield
    except CheckUsageError as exc:
        raise click.UsageError(exc.message) from exc


def read_source(name: str, limit: int, stdin: BinaryIO | None = None) -> bytes:
    """check_run.read_source for a click command: a file it cannot read is a UsageError."""
    with _usage_errors():
        return _read_source(name, limit, stdin)


def policy_option(path: str | None) -> Policy:
    """The allow-list of an --allowlist option (None: the default); a UsageError saying
    what is wrong with it."""
    with _usage_errors():
        return load_check_policy(path)


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
    with _usage_errors():
        text, code = check_files(CheckArguments(files, output, allowlist))
    click.echo(text)
    sys.exit(code)
