"""Option parsing and error printing shared by the commands that run tools."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from dyntools.terminal import terminal_safe

if TYPE_CHECKING:
    from dyntools.errors import DyntoolsError


def json_option(text: str | None, option: str, *, kind: type = dict) -> Any:
    """A JSON option (--params, --schema, --example) as data: a one-line usage error (exit 2)
    for invalid JSON, the wrong kind of value or nesting past MAX_PARAMS_DEPTH."""
    from dyntools.errors import UsageError
    from dyntools.toolmeta import parse_json_text

    if text is None:
        return None
    try:
        value = parse_json_text(text, option)
    except UsageError as exc:
        raise click.UsageError(terminal_safe(exc.message)) from None
    if not isinstance(value, kind):
        raise click.UsageError(f"{option} must be a JSON {'object' if kind is dict else 'list'}")
    return value


def require_layers(text: str | None) -> frozenset[str]:
    """`--require-layers a,b` or `all`, checked against the sandbox's layer names."""
    from dyntools.sandbox.limits import parse_layer_names

    if not text:
        return frozenset()
    try:
        return parse_layer_names(text)
    except ValueError as exc:
        raise click.UsageError(f"--require-layers: {exc}") from exc


EXECUTOR_HELP = ("Where calls run: local (warm pools on this machine) or ray (SandboxHost "
                 "actors on a Ray cluster). Default: DYNTOOLS_EXECUTOR, else local.")
RAY_ADDRESS_HELP = ("The Ray cluster to run calls on, with --executor ray (e.g. auto or "
                    "HOST:6379). Default: DYNTOOLS_RAY_ADDRESS, else Ray's own default.")


def executor_options(command: Any) -> Any:
    """`--executor local|ray` and `--ray-address ADDR` (as `executor`, `ray_address`)."""
    command = click.option("--ray-address", "ray_address", default=None,
                           help=RAY_ADDRESS_HELP)(command)
    return click.option("--executor", type=click.Choice(["local", "ray"]), default=None,
                        help=EXECUTOR_HELP)(command)


def sandbox_limits(timeout: float | None) -> Any:
    from dyntools.sandbox import SandboxLimits

    try:
        return SandboxLimits(timeout_s=timeout) if timeout is not None else SandboxLimits()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc


def configure_logs(level: str, registry_root: Path, *, audit: bool) -> None:
    from dyntools.log import configure_logging

    configure_logging(level, audit_path=registry_root / "audit.log" if audit else None)


def echo_model_notice(generator: Any) -> None:
    """`warning: <one line>` on stderr when the installed SDK marks the model deprecated."""
    notice = getattr(generator, "notice", None)
    if isinstance(notice, str) and notice:
        click.echo(f"warning: {terminal_safe(notice)}", err=True)


def echo_error(error: DyntoolsError, extra_lines: Iterable[str] = ()) -> None:
    """A typed error on stderr: the tool's output, the error, then details, all escaped (the
    tool controls its output, its message and its traceback text)."""
    output = error.details.get("output")
    if output:
        click.echo(terminal_safe(output), err=True, nl=False)
    click.echo(f"error: {error.station}/{error.reason}: {terminal_safe(error.message)}",
               err=True)
    for line in extra_lines:
        click.echo(line, err=True)
    for line, function, text in error.details.get("trace", []):
        click.echo(f"  line {line}, in {terminal_safe(function)}: {terminal_safe(text)}",
                   err=True)
