"""`dyntools call NAME --params JSON`: call the current version of a registry tool.

Its exit codes are `ensure`'s (dyntools/cli/common.py). The work is `call_tool` in
call_run.py, which an ordinary call command line reaches without click (`dyntools.cli.run`);
this is the click command for every other one (--help, a value click refuses), and for
click's CliRunner.
"""

from __future__ import annotations

import click

from dyntools.cli.app import main
from dyntools.cli.call_run import CallArguments, call_tool
from dyntools.cli.common import EXIT_EPILOG
from dyntools.cli.options import as_usage_error, common_options


@main.command(epilog=EXIT_EPILOG)
@click.argument("name")
@click.option("--params", "params_text", required=True, help="The params object, as JSON.")
@common_options
def call(name: str, params_text: str, registry_path: str | None, allowlist: str | None,
         timeout: float | None, require_layers: str | None, log_level: str,
         as_json: bool, executor: str | None, ray_address: str | None,
         trusted_keys: str | None, audit_log: str | None, capabilities: str | None) -> None:
    """Call the current version of tool NAME with --params; print the result JSON."""
    as_usage_error(call_tool, CallArguments(
        name, params_text, registry_path, allowlist, timeout, require_layers, log_level,
        as_json, executor, ray_address, trusted_keys, audit_log, capabilities))
