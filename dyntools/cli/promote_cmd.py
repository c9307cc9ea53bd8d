"""`dyntools promote RUN_ID NAME`: a script run that worked, as a gated, verified tool.

    dyntools promote 3f2a9c0d1b2e4f56 title_slug --description "Slugs a title."
    dyntools call title_slug --params '<the run's inputs>' --capabilities caps.toml

The tool file is written from the kept run (dyntools/codemode/promote.py) and goes through
`ensure`'s stations: gate, load, verify (its EXAMPLES are the recorded run; the tools it
calls are called for real, as composition is verified), persist under the registry's
approval policy, activate. Exits as `ensure` does: 0, 1 (the gate refuses the file), 12
(verification failed), 13 (the run cannot be promoted: the reason is printed), 14 (with
trusted keys, no trusted --sign-key), 17 (the version waits for a reviewer).
"""

from __future__ import annotations

import json

import click

from dyntools.cli.app import main
from dyntools.cli.common import EXIT_EPILOG
from dyntools.cli.options import require_approval_click, sign_key_click
from dyntools.cli.run_cmd import run_options


@main.command(epilog=EXIT_EPILOG)
@click.argument("run_id")
@click.argument("name")
@click.option("--description", default=None,
              help="The tool's DESCRIPTION (default: the script's docstring).")
@click.option("--timeout", type=float, default=None,
              help="Wall-clock limit per sandboxed call at verification, in seconds.")
@require_approval_click
@sign_key_click
@run_options
def promote(run_id: str, name: str, description: str | None, timeout: float | None,
            require_approval: bool, sign_key: str | None, registry_path: str | None,
            allowlist: str | None, require_layers: str | None, allow_weaker_sandbox: bool,
            log_level: str, as_json: bool, executor: str | None, ray_address: str | None,
            trusted_keys: str | None, audit_log: str | None,
            capabilities: str | None) -> None:
    """Make tool NAME from script run RUN_ID (which ended ok with a JSON object).

    PARAMS come from the run's inputs (each key required, typed from its value), EXAMPLES
    from the recorded run, CAPABILITIES from the tools the script calls; the file is gated,
    verified and persisted under the registry's approval policy like any new version.
    """
    from dyntools.cli.common import fail, open_registry
    from dyntools.cli.ensure_cmd import StationDisplay, _pending_exit
    from dyntools.cli.options import sandbox_options, signer_option
    from dyntools.errors import DyntoolsError
    from dyntools.pipeline.dyntools import Dyntools

    sandbox = sandbox_options(allowlist, require_layers, timeout, capabilities,
                              allow_weaker_sandbox)
    display = StationDisplay.on_stderr(as_json)
    try:
        signer = signer_option(sign_key)
        registry = open_registry(registry_path, sandbox.policy, trusted_keys, log_level,
                                 audit_log, must_exist=True)
        with Dyntools(registry, signer=signer, executor=executor, ray_address=ray_address,
                      **sandbox.args) as dt:
            result = dt.promote(run_id, name, description, require_approval=require_approval,
                                on_station=display)
    except DyntoolsError as exc:
        fail(exc, as_json, display.events)
        return
    if result.pending:
        _pending_exit(result, as_json, [], [])
    if as_json:
        click.echo(json.dumps({"ok": True, "run_id": run_id, **result.as_dict()}, indent=2))
        return
    click.echo(f"{name} v{result.version}: promoted from run {run_id}, verified and "
               "activated")
