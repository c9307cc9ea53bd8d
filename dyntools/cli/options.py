"""The click side of the options shared by the commands that run tools: the options
themselves, and their values read by values.py (click-free, for `dyntools call`'s fast path),
with an `OptionValueError` turned into click's UsageError (one line, exit 2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from dyntools.base.terminal import terminal_safe
from dyntools.cli.values import (
    AUDIT_LOG_ENV,
    OptionValueError,
    capability_policy_value,
    echo_error,
    json_value,
    layers_value,
    limits_value,
    policy_value,
    registry_root,
    setup_logging,
    signer_option,
    trusted_keys_option,
)

__all__ = ["AUDIT_LOG_ENV", "echo_error", "registry_root", "setup_logging", "signer_option",
           "trusted_keys_option"]

T = TypeVar("T")


def as_usage_error(read: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`read(*args, **kwargs)`, its OptionValueError raised as click's UsageError."""
    try:
        return read(*args, **kwargs)
    except OptionValueError as exc:
        raise click.UsageError(exc.message) from None


def json_option(text: str | None, option: str, *, kind: type = dict) -> Any:
    """A JSON option (--params, --schema, --example) as data (values.json_value)."""
    return as_usage_error(json_value, text, option, kind=kind)


def policy_option(path: str | None) -> Any:
    """`--allowlist FILE`, else DYNTOOLS_ALLOWLIST, else the shipped allow-list."""
    return as_usage_error(policy_value, path)


def require_layers(text: str | None) -> frozenset[str]:
    """`--require-layers a,b` or `all`, checked against the sandbox's layer names."""
    return as_usage_error(layers_value, text)


def sandbox_limits(timeout: float | None) -> Any:
    return as_usage_error(limits_value, timeout)


def capability_policy_option(path: str | None) -> Any:
    """`--capabilities FILE`, else DYNTOOLS_CAPABILITIES, else None (nothing granted)."""
    return as_usage_error(capability_policy_value, path)


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


# The options `ensure` and `call` share (as their keyword arguments' names say).
COMMON_OPTIONS = [
    click.option("--registry", "registry_path", type=str, default=None,
                 help="Registry folder (default: DYNTOOLS_REGISTRY, else ./generated_tools)."),
    click.option("--allowlist", type=click.Path(dir_okay=False), default=None,
                 help="Policy file (default: DYNTOOLS_ALLOWLIST, else the shipped "
                      "allowlist.toml)."),
    click.option("--timeout", type=float, default=None,
                 help="Wall-clock limit per sandboxed call, in seconds."),
    click.option("--require-layers", default=None,
                 help="Comma list of sandbox layers that must be active, or 'all'."),
    click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]),
                 default="warning", show_default=True,
                 help="Log level on stderr (the registry's audit.log always gets info)."),
    click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON."),
    click.option("--executor", type=click.Choice(["local", "ray"]), default=None,
                 help=EXECUTOR_HELP),
    click.option("--ray-address", "ray_address", default=None, help=RAY_ADDRESS_HELP),
    trusted_keys_click,
    audit_log_option,
    capabilities_click,
]


def common_options(command: Any) -> Any:
    for option in reversed(COMMON_OPTIONS):
        command = option(command)
    return command
