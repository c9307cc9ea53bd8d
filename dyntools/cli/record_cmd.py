"""`dyntools record NAME --params JSON --capabilities FILE`: run a capability tool once for
real and make its exchanges the example of a new version (dyntools/pipeline/record.py).

Its exit codes are `ensure`'s (dyntools/cli/common.py): the call's own when it fails (4, 18
http_error, 8, ...: nothing is written), 2 when there is nothing to record or nothing is
granted, 12 when the new version fails verification, 17 when it waits for a reviewer.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from dyntools.base.terminal import terminal_safe
from dyntools.cli.app import main
from dyntools.cli.common import EXIT_EPILOG, EXIT_PENDING, fail, open_registry
from dyntools.cli.ensure_cmd import StationDisplay
from dyntools.cli.options import (
    common_options,
    json_option,
    require_approval_click,
    sandbox_options,
    sign_key_click,
    signer_option,
)
from dyntools.errors import DyntoolsError


@main.command(epilog=EXIT_EPILOG)
@click.argument("name")
@click.option("--params", "params_text", default="{}", show_default=True,
              help="The params of the call to record, as JSON.")
@require_approval_click
@sign_key_click
@common_options
def record(name: str, params_text: str, require_approval: bool, sign_key: str | None,
           registry_path: str | None, allowlist: str | None, timeout: float | None,
           require_layers: str | None, allow_weaker_sandbox: bool, log_level: str,
           as_json: bool, executor: str | None, ray_address: str | None,
           trusted_keys: str | None, audit_log: str | None, capabilities: str | None) -> None:
    """Run NAME's current version once for real, its requests through the broker under the
    capability policy (--capabilities FILE), and make a new version whose EXAMPLES hold this
    call: params, result and the exchanges it made (a secret a server echoed shows as
    [redacted:NAME]). The new version is verified by replaying them, then follows the
    approval policy and the decision chain as ensure's do."""
    from dyntools.pipeline.dyntools import Dyntools
    from dyntools.registry.records import require_valid_name

    params = json_option(params_text, "--params")
    sandbox = sandbox_options(allowlist, require_layers, timeout, capabilities,
                              allow_weaker_sandbox)
    display = StationDisplay.on_stderr(as_json)
    try:
        require_valid_name(name)
        signer = signer_option(sign_key)
        registry = open_registry(registry_path, sandbox.policy, trusted_keys, log_level,
                                 audit_log, must_exist=True)
        with Dyntools(registry, signer=signer, executor=executor, ray_address=ray_address,
                      **sandbox.args) as dt:
            done = dt.record(name, params, on_station=display,
                             require_approval=require_approval)
    except DyntoolsError as exc:
        fail(exc, as_json, display.events)
        return
    if as_json:
        click.echo(json.dumps({"ok": not done.ensured.pending, **done.as_dict()}, indent=2))
    else:
        _report(done)
    if done.ensured.pending:
        sys.exit(EXIT_PENDING)


def _report(done: Any) -> None:
    """What was recorded, and what became of the new version."""
    exchanges = done.example.get("http", [])
    click.echo(f"{done.name}: recorded from v{done.recorded_from}, {len(exchanges)} "
               "exchange(s):")
    for exchange in exchanges:
        request = exchange["request"]
        answer = (f"{exchange['response']['status']}" if "response" in exchange
                  else f"failed ({exchange['failure']})")
        click.echo(f"  {terminal_safe(request['method'])} {terminal_safe(request['url'])} -> "
                   f"{answer}")
    click.echo(f"  result: {terminal_safe(json.dumps(done.example['result']))}")
    result = done.ensured
    record = result.record
    if result.pending:
        click.echo(f"{record.name} v{record.version}: the recorded example, verified; "
                   "pending approval: not served until a reviewer approves it")
        click.echo(f"  read it:    dyntools show {record.name} --version {record.version}")
        click.echo(f"  approve it: {result.approve_command} [--reason TEXT] [--sign-key KEY]")
        return
    click.echo(f"{record.name} v{record.version}: the recorded example, verified and "
               "activated")
