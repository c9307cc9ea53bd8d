"""`dyntools call NAME --params JSON`: call the current version of a registry tool.

Its exit codes are `ensure`'s (dyntools/cli/common.py). It loads nothing of generation,
verification or the other commands (tests/test_startup.py): a cold call's start-up is most of
its cost (bench/startup.py).
"""

from __future__ import annotations

import json
import os

import click

from dyntools.cli.app import main
from dyntools.cli.common import EXIT_EPILOG
from dyntools.cli.options import common_options, isolation_click, json_option, sandbox_options


@main.command(epilog=EXIT_EPILOG)
@click.argument("name")
@click.option("--params", "params_text", default="{}", show_default=True,
              help="The params object, as JSON (a tool without required params needs none).")
@isolation_click
@common_options
def call(name: str, params_text: str, isolation: str, registry_path: str | None,
         allowlist: str | None, timeout: float | None, require_layers: str | None,
         allow_weaker_sandbox: bool, log_level: str, as_json: bool, executor: str | None,
         ray_address: str | None, trusted_keys: str | None, audit_log: str | None,
         capabilities: str | None) -> None:
    """Call the current version of tool NAME with --params (default {}); print the result
    JSON."""
    from dyntools.executors import ENV_EXECUTOR
    from dyntools.sandbox.pool import prestart

    chosen = (executor or os.environ.get(ENV_EXECUTOR, "")).strip().lower()
    if chosen in ("", "local"):
        prestart()  # the worker's interpreter starts while the registry opens (sandbox/pool.py)
    from dyntools.cli.common import fail, open_registry
    from dyntools.errors import DyntoolsError
    from dyntools.pipeline.dyntools import Dyntools
    from dyntools.registry.records import require_valid_name

    params = json_option(params_text, "--params")
    sandbox = sandbox_options(allowlist, require_layers, timeout, capabilities,
                              allow_weaker_sandbox)
    try:
        require_valid_name(name)
        registry = open_registry(registry_path, sandbox.policy, trusted_keys, log_level,
                                 audit_log, must_exist=True)
        # One call: one worker (a second would only compete with it for the CPU).
        with Dyntools(registry, executor=executor, ray_address=ray_address, pool_size=1,
                      isolation=isolation, **sandbox.args) as dt:
            served = dt.call_served(name, params)
    except DyntoolsError as exc:
        fail(exc, as_json, [])
        return
    if as_json:
        click.echo(json.dumps({"ok": True, "tool": name, "version": served.version,
                               "result": served.result}, indent=2))
    else:
        click.echo(json.dumps(served.result))
