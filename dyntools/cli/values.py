"""Option values and messages of the commands that run tools, without click.

`dyntools call`'s fast path (call_run.py) reads its options here, and so do the click
commands, through options.py, which turns an `OptionValueError` into click's UsageError: both
ways a bad value is the same one-line usage error (exit 2). Output goes through `echo`
(click.echo's behaviour here: write, then flush; every tool-controlled text is escaped by
terminal_safe before it is written, so there is no escape sequence for click to strip).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from dyntools.base.terminal import terminal_safe

TYPE_CHECKING = False  # not typing's: a check never imports typing (docs/gate.md)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from dyntools.errors import DyntoolsError
    from dyntools.gate.policy import Policy

AUDIT_LOG_ENV = "DYNTOOLS_AUDIT_LOG"


class OptionValueError(Exception):
    """An option value the command cannot use; `message` is its usage error's text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def json_value(text: str | None, option: str, *, kind: type = dict) -> Any:
    """A JSON option (--params, --schema, --example) as data: invalid JSON, the wrong kind of
    value or nesting past MAX_PARAMS_DEPTH is an OptionValueError."""
    from dyntools.errors import UsageError
    from dyntools.pipeline.toolmeta import parse_json_text

    if text is None:
        return None
    try:
        value = parse_json_text(text, option)
    except UsageError as exc:
        raise OptionValueError(terminal_safe(exc.message)) from None
    if not isinstance(value, kind):
        raise OptionValueError(
            f"{option} must be a JSON {'object' if kind is dict else 'list'}")
    return value


def policy_value(path: str | None) -> Policy:
    """`--allowlist FILE`, else DYNTOOLS_ALLOWLIST, else the shipped allow-list; one that
    cannot be read or parsed is an OptionValueError (for `call` and `check` alike)."""
    from dyntools.registry.policyload import load_allowlist

    try:
        return load_allowlist(path)
    except Exception as exc:  # only a failure imports dyntools.errors (registry/policyload.py)
        from dyntools.errors import PolicyLoadError

        if not isinstance(exc, PolicyLoadError):
            raise
        raise OptionValueError(terminal_safe(exc.message)) from exc


def layers_value(text: str | None) -> frozenset[str]:
    """`--require-layers a,b` or `all`, checked against the sandbox's layer names."""
    from dyntools.sandbox.limits import parse_layer_names

    if not text:
        return frozenset()
    try:
        return parse_layer_names(text)
    except ValueError as exc:
        raise OptionValueError(f"--require-layers: {exc}") from exc


def limits_value(timeout: float | None) -> Any:
    """The sandbox's limits, with `--timeout` when given."""
    from dyntools.sandbox import SandboxLimits

    try:
        return SandboxLimits(timeout_s=timeout) if timeout is not None else SandboxLimits()
    except ValueError as exc:
        raise OptionValueError(str(exc)) from exc


def capability_policy_value(path: str | None) -> Any:
    """`--capabilities FILE`, else DYNTOOLS_CAPABILITIES, else EMPTY_POLICY (nothing
    granted); a policy that cannot be read is an OptionValueError."""
    from dyntools.capabilities.policy import resolve_capability_policy
    from dyntools.errors import CapabilityPolicyError

    try:
        return resolve_capability_policy(path)
    except CapabilityPolicyError as exc:
        raise OptionValueError(terminal_safe(exc.message)) from None


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """`text` on stdout (stderr with `err`), then a flush, as click.echo writes it."""
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n" if nl else text)
    stream.flush()


def echo_error(error: DyntoolsError, extra_lines: Iterable[str] = ()) -> None:
    """A typed error on stderr: the tool's output, the error, then details, all escaped (the
    tool controls its output, its message and its traceback text)."""
    output = error.details.get("output")
    if output:
        echo(terminal_safe(output), err=True, nl=False)
    echo(f"error: {error.station}/{error.reason}: {terminal_safe(error.message)}", err=True)
    for line in extra_lines:
        echo(line, err=True)
    for line, function, text in error.details.get("trace", []):
        echo(f"  line {line}, in {terminal_safe(function)}: {terminal_safe(text)}", err=True)


def show_usage_error(command_name: str, message: str) -> int:
    """Print `message` as click prints a usage error of `dyntools COMMAND_NAME` (usage line,
    hint, `Error: ...`); the exit code (2). Click is imported only now."""
    import click
    from click.utils import _detect_program_name

    from dyntools.cli.app import main

    with click.Context(main, info_name=_detect_program_name()) as parent:
        command = main.get_command(parent, command_name)
        assert command is not None
        error = click.UsageError(message, click.Context(command, info_name=command_name,
                                                        parent=parent))
        error.show()
    return error.exit_code


def registry_root(option: str | None, *, must_exist: bool) -> Path:
    """The registry folder from `--registry` or DYNTOOLS_REGISTRY, checked: a file, a missing
    folder where one must exist, or an unreadable one is a UsageError (one line, exit 2)."""
    from dyntools.errors import UsageError
    from dyntools.registry.records import resolve_registry_path

    root = resolve_registry_path(option)
    if os.path.lexists(root) and not root.is_dir():
        raise UsageError(f"registry {root} is not a folder", path=str(root))
    if must_exist and not root.exists():
        raise UsageError(f"registry {root} does not exist (dyntools init {root} creates one)",
                         path=str(root))
    if root.exists() and not os.access(root, os.R_OK | os.X_OK):
        raise UsageError(f"registry {root} cannot be read (permission denied)", path=str(root))
    return root


def setup_logging(level: str, root: Path, *, audit: bool, audit_log: str | None) -> None:
    """Logs on stderr at `level`; audit events (info and up) to `--audit-log PATH`, else
    DYNTOOLS_AUDIT_LOG, else `<registry>/audit.log` when `audit`. An audit file that cannot
    be opened (a read-only registry) sends the audit events to stderr instead, with one
    warning saying so: the command still runs."""
    from pathlib import Path

    from dyntools.base.log import configure_logging, get_logger

    explicit = audit_log or os.environ.get(AUDIT_LOG_ENV) or None
    path = Path(explicit) if explicit else (root / "audit.log" if audit else None)
    try:
        configure_logging(level, audit_path=path)
    except OSError as exc:
        configure_logging("info" if level in ("warning", "error") else level)
        get_logger("cli").warning("audit.stderr", path=str(path),
                                  reason=f"cannot write the audit log: {exc.strerror or exc}",
                                  hint="audit events go to stderr (or pass --audit-log PATH)")


def trusted_keys_option(path: str | None) -> frozenset[str] | None:
    """`--trusted-keys FILE`, else DYNTOOLS_TRUSTED_KEYS, else None (no signature rule)."""
    from dyntools.registry.signing import TRUSTED_KEYS_ENV, load_trusted_keys

    path = path or os.environ.get(TRUSTED_KEYS_ENV) or None
    return load_trusted_keys(path) if path else None


def signer_option(path: str | None) -> Any:
    """`--sign-key KEYFILE`, else DYNTOOLS_SIGNING_KEY, else None."""
    from dyntools.registry.signing import SIGNING_KEY_ENV, load_signing_key

    path = path or os.environ.get(SIGNING_KEY_ENV) or None
    return load_signing_key(path) if path else None
