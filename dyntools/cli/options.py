"""The options shared by the commands, and how their values are read.

A value the command cannot use (invalid JSON, an allow-list or capability policy that does
not load, an unknown layer name, a timeout out of range) is click's UsageError: one line,
exit 2, the same for every command that takes the option.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

import click

from dyntools.base.terminal import terminal_safe

if TYPE_CHECKING:
    from pathlib import Path

    from dyntools.errors import DyntoolsError
    from dyntools.gate.policy import Policy

AUDIT_LOG_ENV = "DYNTOOLS_AUDIT_LOG"


def json_option(text: str | None, option: str, *, kind: type = dict) -> Any:
    """A JSON option (--params, --schema, --example) as data: invalid JSON, the wrong kind of
    value or nesting past MAX_PARAMS_DEPTH is a UsageError."""
    from dyntools.errors import UsageError
    from dyntools.pipeline.toolmeta import parse_json_text

    if text is None:
        return None
    try:
        value = parse_json_text(text, option)
    except UsageError as exc:
        raise click.UsageError(terminal_safe(exc.message)) from None
    if not isinstance(value, kind):
        raise click.UsageError(
            f"{option} must be a JSON {'object' if kind is dict else 'list'}")
    return value


def policy_option(path: str | None) -> Policy:
    """`--allowlist FILE`, else DYNTOOLS_ALLOWLIST, else the shipped allow-list; one that
    cannot be read or parsed is a UsageError."""
    from dyntools.registry.policyload import load_allowlist

    try:
        return load_allowlist(path)
    except Exception as exc:  # only a failure imports dyntools.errors (registry/policyload.py)
        from dyntools.errors import PolicyLoadError

        if not isinstance(exc, PolicyLoadError):
            raise
        raise click.UsageError(terminal_safe(exc.message)) from exc


def require_layers_option(text: str | None) -> frozenset[str]:
    """`--require-layers a,b` or `all`, checked against the sandbox's layer names."""
    from dyntools.sandbox.limits import parse_layer_names

    if not text:
        return frozenset()
    try:
        return parse_layer_names(text)
    except ValueError as exc:
        raise click.UsageError(f"--require-layers: {exc}") from exc


def sandbox_limits(timeout: float | None) -> Any:
    """The sandbox's limits, with `--timeout` when given."""
    from dyntools.sandbox import SandboxLimits

    try:
        return SandboxLimits(timeout_s=timeout) if timeout is not None else SandboxLimits()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc


def capability_policy_option(path: str | None) -> Any:
    """`--capabilities FILE`, else DYNTOOLS_CAPABILITIES, else EMPTY_POLICY (nothing
    granted); a policy that cannot be read is a UsageError."""
    from dyntools.capabilities.policy import resolve_capability_policy
    from dyntools.errors import CapabilityPolicyError

    try:
        return resolve_capability_policy(path)
    except CapabilityPolicyError as exc:
        raise click.UsageError(terminal_safe(exc.message)) from None


class SandboxArgs(TypedDict):
    """The keyword arguments of `Dyntools(...)` that the sandbox options set."""

    limits: Any
    require_layers: frozenset[str]
    capabilities: Any
    allow_weaker_sandbox: bool | None


@dataclass(frozen=True)
class SandboxOptions:
    """`--allowlist`, `--require-layers`, `--timeout`, `--capabilities` and
    `--allow-weaker-sandbox` read once for a command that runs tools: the policy and the
    capability grant (a generator takes them too), and `Dyntools(registry, **options.args)`."""

    policy: Policy
    granted: Any
    args: SandboxArgs


def sandbox_options(allowlist: str | None, require_layers: str | None, timeout: float | None,
                    capabilities: str | None, allow_weaker_sandbox: bool) -> SandboxOptions:
    """The sandbox options, read in that order (the first one that is off is the
    UsageError)."""
    policy = policy_option(allowlist)
    layers = require_layers_option(require_layers)
    limits = sandbox_limits(timeout)
    granted = capability_policy_option(capabilities)
    return SandboxOptions(policy, granted, SandboxArgs(
        limits=limits, require_layers=layers, capabilities=granted,
        allow_weaker_sandbox=allow_weaker_option(allow_weaker_sandbox)))


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
        configure_logging(level, audit_path=path, json=None)  # --log-format decides
    except OSError as exc:
        configure_logging("info" if level in ("warning", "error") else level, json=None)
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


EXECUTOR_HELP = ("Where calls run: local (warm pools on this machine) or ray (SandboxHost "
                 "actors on a Ray cluster). Default: DYNTOOLS_EXECUTOR, else local.")
RAY_ADDRESS_HELP = ("The Ray cluster to run calls on, with --executor ray: HOST:6379, auto (a "
                    "running cluster), or local (start a throwaway one for this command). "
                    "Default: DYNTOOLS_RAY_ADDRESS, else auto: a command never starts a "
                    "cluster unless asked.")
RAY_CONNECT_TIMEOUT_HELP = ("Seconds to wait for the Ray cluster to answer a connect (default: "
                            "DYNTOOLS_RAY_CONNECT_TIMEOUT, else 10); past it, exit 11 with "
                            "what Ray said.")


def _ray_connect_timeout(ctx: click.Context, param: click.Parameter,
                         value: float | None) -> None:
    """The executor reads DYNTOOLS_RAY_CONNECT_TIMEOUT (executors/ray_connect.py): the option
    sets it for this command, after the same check."""
    if value is None:
        return
    if not 0 < value <= 3600:
        raise click.BadParameter("must be above 0 and at most 3600 seconds")
    from dyntools.executors.ray_connect import CONNECT_TIMEOUT_ENV

    os.environ[CONNECT_TIMEOUT_ENV] = repr(value)


ray_connect_timeout_click = click.option(
    "--ray-connect-timeout", type=float, default=None, expose_value=False,
    callback=_ray_connect_timeout, help=RAY_CONNECT_TIMEOUT_HELP)


def executor_options(command: Any) -> Any:
    """`--executor local|ray`, `--ray-address ADDR` (as `executor`, `ray_address`) and
    `--ray-connect-timeout S`."""
    command = ray_connect_timeout_click(command)
    command = click.option("--ray-address", "ray_address", default=None,
                           help=RAY_ADDRESS_HELP)(command)
    return click.option("--executor", type=click.Choice(["local", "ray"]), default=None,
                        help=EXECUTOR_HELP)(command)


def echo_model_notice(generator: Any) -> None:
    """`warning: <one line>` on stderr when the installed SDK marks the model deprecated."""
    notice = getattr(generator, "notice", None)
    if isinstance(notice, str) and notice:
        click.echo(f"warning: {terminal_safe(notice)}", err=True)


audit_log_option = click.option(
    "--audit-log", "audit_log", type=click.Path(dir_okay=False), default=None,
    help="Write audit events here (default: DYNTOOLS_AUDIT_LOG, else <registry>/audit.log "
         "for commands that change something; on a read-only registry, stderr).")
trusted_keys_click = click.option(
    "--trusted-keys", "trusted_keys", type=click.Path(dir_okay=False), default=None,
    help="A file of trusted Ed25519 public keys, one a line (default: "
         "DYNTOOLS_TRUSTED_KEYS): versions without a valid signature by one are refused, and "
         "tools whose decision chain does not vouch for what is served.")
require_approval_click = click.option(
    "--require-approval", is_flag=True,
    help="Hold the new version for a reviewer (pending, exit 17) whatever the registry's "
         "approval policy.")
sign_key_click = click.option(
    "--sign-key", "sign_key", type=click.Path(dir_okay=False), default=None,
    help="Sign the decision with this Ed25519 key (default: DYNTOOLS_SIGNING_KEY; dyntools "
         "keygen makes one): its record joins the tool's decision chain, and an approved "
         "version's record is signed too. With trusted keys, a decision needs one of them "
         "(exit 14).")


CAPABILITIES_HELP = ("The operator's capability policy (TOML): which hosts, secrets and tools a "
                     "tool that declares CAPABILITIES may be granted. Default: "
                     "DYNTOOLS_CAPABILITIES; without one, nothing is granted.")
capabilities_click = click.option(
    "--capabilities", "capabilities", type=click.Path(dir_okay=False), default=None,
    help=CAPABILITIES_HELP)


ALLOW_WEAKER_HELP = (
    "Run tool code even where the sandbox is below its default minimum (seccomp, and mountns "
    "with userns or landlock_fs), which it refuses otherwise; the opt-in is recorded in the "
    "audit log. Default: DYNTOOLS_ALLOW_WEAKER_SANDBOX=1 opts in. It lowers only the default "
    "minimum: --require-layers still applies.")
allow_weaker_click = click.option(
    "--allow-weaker-sandbox", "allow_weaker_sandbox", is_flag=True, help=ALLOW_WEAKER_HELP)


ISOLATION_HELP = (
    "worker: a warm worker serves call after call (its state compared after each). call: no "
    "process that ran one call runs another (a worker forked for each call): choose it for a "
    "server that serves several users with tools nobody reviewed (docs/sandbox.md).")
isolation_click = click.option(
    "--isolation", type=click.Choice(["worker", "call"]), default="worker",
    show_default=True, help=ISOLATION_HELP)


def allow_weaker_option(flag: bool) -> bool | None:
    """`--allow-weaker-sandbox` for `Dyntools(allow_weaker_sandbox=...)`: True when given,
    else None (DYNTOOLS_ALLOW_WEAKER_SANDBOX decides)."""
    return True if flag else None


# The options commands that run tools take, one object each, so a command lists the ones it
# takes and they read the same everywhere (keyword arguments' names in the second string).
registry_click = click.option(
    "--registry", "registry_path", type=str, default=None,
    help="Registry folder (default: DYNTOOLS_REGISTRY, else ./generated_tools).")
allowlist_click = click.option(
    "--allowlist", type=click.Path(dir_okay=False), default=None,
    help="Policy file (default: DYNTOOLS_ALLOWLIST, else the shipped allowlist.toml).")
timeout_click = click.option(
    "--timeout", type=float, default=None,
    help="Wall-clock limit per sandboxed call, in seconds.")
require_layers_click = click.option(
    "--require-layers", default=None,
    help="Comma list of sandbox layers that must be active, or 'all'.")
log_level_click = click.option(
    "--log-level", type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning", show_default=True,
    help="Log level on stderr (the registry's audit.log always gets info).")
json_outcome_click = click.option(
    "--json", "as_json", is_flag=True, help="Print the outcome as JSON.")


def with_options(options: Sequence[Callable[[Any], Any]]) -> Callable[[Any], Any]:
    """One decorator that applies `options` in their order (the first listed is the first
    in --help)."""

    def apply(command: Any) -> Any:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


# The options `ensure` and `call` share (as their keyword arguments' names say).
COMMON_OPTIONS: list[Callable[[Any], Any]] = [
    registry_click, allowlist_click, timeout_click, require_layers_click, allow_weaker_click,
    log_level_click, json_outcome_click, executor_options, trusted_keys_click,
    audit_log_option, capabilities_click,
]
common_options = with_options(COMMON_OPTIONS)
