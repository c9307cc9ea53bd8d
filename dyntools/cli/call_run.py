"""`dyntools call`'s work, and its command line read without click.

A cold `dyntools call` is mostly start-up (bench/startup.py), and click's import (~12-15 ms:
inspect, uuid, platform, gettext, datetime) was a tenth of it. `run()` in `dyntools.cli` sends
an ordinary call command line here (`fast_arguments`: NAME, --params and the options the call
command has, each with a value click would take as it is: cli/plain_args.py); anything
else (--help, an option it does not have, a flag given a value, a value click would refuse,
no NAME, no --params) goes to the click command in call_cmd.py. Both ways run `call_tool`,
and a usage error found while working (invalid --params JSON, an allow-list that does not
parse) is printed by click's own code either way; a test runs both on the same command
lines, and a property test holds every command line taken here to what click's parser makes
of it.
"""

from __future__ import annotations

import json
import os
import stat
from functools import partial
from typing import Any, NamedTuple

from dyntools.base import interrupts
from dyntools.cli.plain_args import read_plain
from dyntools.cli.values import (
    OptionValueError,
    capability_policy_value,
    echo,
    json_value,
    layers_value,
    limits_value,
    policy_value,
)


class CallArguments(NamedTuple):
    """The call command's parameters, named as its click options name them."""

    name: str
    params_text: str
    registry_path: str | None = None
    allowlist: str | None = None
    timeout: float | None = None
    require_layers: str | None = None
    log_level: str = "warning"
    as_json: bool = False
    executor: str | None = None
    ray_address: str | None = None
    trusted_keys: str | None = None
    audit_log: str | None = None
    capabilities: str | None = None


# option -> its parameter; each takes one value (--json is the only flag)
VALUE_OPTIONS = {
    "--params": "params_text", "--registry": "registry_path", "--allowlist": "allowlist",
    "--timeout": "timeout", "--require-layers": "require_layers", "--log-level": "log_level",
    "--executor": "executor", "--ray-address": "ray_address",
    "--trusted-keys": "trusted_keys", "--audit-log": "audit_log",
    "--capabilities": "capabilities",
}
CHOICES = {"--log-level": ("debug", "info", "warning", "error"), "--executor": ("local", "ray")}
# click.Path(dir_okay=False): a folder, or a file that cannot be read, is click's error
FILE_OPTIONS = frozenset({"--allowlist", "--trusted-keys", "--audit-log", "--capabilities"})


def _takes(option: str, value: str) -> bool:
    """Whether click would take `value` for `option` as it is (else click says why not)."""
    if option in CHOICES:
        return value in CHOICES[option]
    if option == "--timeout":
        try:
            float(value)
        except ValueError:
            return False
        return True
    if option in FILE_OPTIONS:
        try:
            status = os.stat(value)
        except (OSError, ValueError):
            return True  # click.Path without exists=True takes a path that is not there
        return not stat.S_ISDIR(status.st_mode) and os.access(value, os.R_OK)
    return True


def fast_arguments(argv: list[str]) -> CallArguments | None:
    """The arguments after `call`, when they are plain enough to need no click; None for
    anything else (click then parses them, and says what is wrong)."""
    parsed = read_plain(argv, flags=frozenset({"--json"}),
                        takes={option: partial(_takes, option) for option in VALUE_OPTIONS})
    if parsed is None:
        return None
    names, given = parsed
    if len(names) != 1 or "--params" not in given:
        return None
    values: dict[str, Any] = {"as_json": True} if given.pop("--json", False) else {}
    for option, value in given.items():
        assert isinstance(value, str)
        values[VALUE_OPTIONS[option]] = float(value) if option == "--timeout" else value
    return CallArguments(names[0], "")._replace(**values)


def call_tool(arguments: CallArguments) -> None:
    """Call the current version of the tool and print its result JSON (and return), or fail
    with the error's exit code (SystemExit, common.fail). An option value it cannot use is an
    OptionValueError, raised before the registry opens."""
    from dyntools.executors import ENV_EXECUTOR
    from dyntools.sandbox.pool import prestart

    executor = (arguments.executor or os.environ.get(ENV_EXECUTOR, "")).strip().lower()
    if executor in ("", "local"):
        prestart()  # the worker's interpreter starts while the registry opens (sandbox/pool.py)
    from dyntools.cli.common import fail, open_registry
    from dyntools.errors import DyntoolsError
    from dyntools.pipeline.dyntools import Dyntools
    from dyntools.registry.records import require_valid_name

    params = json_value(arguments.params_text, "--params")
    policy = policy_value(arguments.allowlist)
    layers = layers_value(arguments.require_layers)
    limits = limits_value(arguments.timeout)
    granted = capability_policy_value(arguments.capabilities)
    name = arguments.name
    try:
        require_valid_name(name)
        registry = open_registry(arguments.registry_path, policy, arguments.trusted_keys,
                                 arguments.log_level, arguments.audit_log, must_exist=True)
        # One call: one worker (a second would only compete with it for the CPU).
        with Dyntools(registry, limits=limits, require_layers=layers,
                      executor=arguments.executor, ray_address=arguments.ray_address,
                      pool_size=1, capabilities=granted) as dt:
            served = dt.call_served(name, params)
    except DyntoolsError as exc:
        fail(exc, arguments.as_json, [])
        return
    if arguments.as_json:
        echo(json.dumps({"ok": True, "tool": name, "version": served.version,
                         "result": served.result}, indent=2))
    else:
        echo(json.dumps(served.result))


def run_fast(arguments: CallArguments) -> int:
    """The call command without click (see the module's docstring); the exit code."""
    interrupts.install()
    try:
        call_tool(arguments)
    except OptionValueError as exc:
        from dyntools.cli.values import show_usage_error

        return show_usage_error("call", exc.message)
    except BrokenPipeError:
        # The reader went away (`dyntools call ... | true`): exit 1 quietly, as click does,
        # and let the flush at exit write nowhere.
        from dyntools.cli import reader_gone

        return reader_gone()
    except KeyboardInterrupt as exc:
        code = interrupts.exit_code_for(exc)
        from dyntools.cli import report_interrupt

        report_interrupt("call", code)
        return code
    finally:
        interrupts.finishing()
    return 0
