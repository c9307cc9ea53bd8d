"""`dyntools health` (the registry's health: regressions, unverified versions, duplicates,
usage, unused tools, stale pending versions, capability drift) and `dyntools repair` (a
failing call and its expected result into a verified next version).

Both take the registry's options (`--registry`, `--allowlist`, `--trusted-keys`,
`--audit-log`) and the run options (`--capabilities`, `--timeout`, `--require-layers`,
`--log-level`, `--allow-weaker-sandbox`): each runs tool code, so each refuses a sandbox
below its default minimum unless `--allow-weaker-sandbox`.

Exit codes of `health`: 0 healthy, 1 a regression or an unverified version (fail closed: a
version that could not be re-verified counts), 2 usage, 10 a sandbox below its default
minimum here (or a layer --require-layers names is missing): nothing could be re-verified.
`repair`: `ensure`'s codes (dyntools/cli/common.py), in particular 0 the repaired version is
current, 12 no attempt passed (nothing was written but audit events), 17 it waits for a
reviewer, 2 bad input or nothing to repair.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from dyntools.base.terminal import terminal_safe
from dyntools.cli.app import main
from dyntools.cli.common import EXIT_EPILOG, EXIT_PENDING, fail, open_registry
from dyntools.cli.generator_options import generator_from, generator_options
from dyntools.cli.options import (
    allow_weaker_click,
    allowlist_click,
    capabilities_click,
    common_options,
    echo_error,
    echo_model_notice,
    json_option,
    registry_click,
    registry_root,
    require_layers_click,
    sandbox_options,
    setup_logging,
    sign_key_click,
    signer_option,
    timeout_click,
    trusted_keys_click,
    trusted_keys_option,
)
from dyntools.errors import DyntoolsError

EXIT_HEALTHY, EXIT_UNHEALTHY, EXIT_USAGE, EXIT_LAYER = 0, 1, 2, 10
HEALTH_EPILOG = ("Exit codes: 0 healthy, 1 a regression or an unverified version, 2 usage, "
                 "10 the sandbox is below its default minimum here (nothing could be "
                 "re-verified; --allow-weaker-sandbox), 130 SIGINT, 143 SIGTERM.")


@main.command(epilog=HEALTH_EPILOG)
@registry_click
@allowlist_click
@trusted_keys_click
@click.option("--audit-log", "audit_log", type=click.Path(dir_okay=False), default=None,
              help="The audit log whose execute events usage reads (default: "
                   "DYNTOOLS_AUDIT_LOG, else <registry>/audit.log); health writes none.")
@capabilities_click
@timeout_click
@require_layers_click
@allow_weaker_click
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]),
              default="warning", show_default=True, help="Log level on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default=None,
              help="Output format (sarif is SARIF 2.1.0 for code scanning).")
@click.option("--since", "since_text", default="30d", show_default=True,
              help="The usage window: 30d, 12h, 45m, 2w (the audit log's execute events).")
@click.option("--stale-days", type=click.FloatRange(min=0, max=36500), default=14.0,
              show_default=True, help="A version pending longer than this is stale.")
@click.option("--jobs", type=click.IntRange(min=1, max=64), default=None,
              help="Versions re-verified at once (default: twice the cores here).")
def health(registry_path: str | None, allowlist: str | None, trusted_keys: str | None,
           audit_log: str | None, capabilities: str | None, timeout: float | None,
           require_layers: str | None, allow_weaker_sandbox: bool, log_level: str,
           as_json: bool, fmt: str | None, since_text: str, stale_days: float,
           jobs: int | None) -> None:
    """Re-verify every served version in the sandbox, find duplicates, read usage from the
    audit log. Exit 1 on a regression or a version that could not be re-verified.

    It reads and reports: nothing served changes. --audit-log names the audit log to read
    (default: DYNTOOLS_AUDIT_LOG, else <registry>/audit.log); health writes none.
    """
    import os

    from dyntools.cli.health_format import render_text, to_sarif
    from dyntools.cli.options import AUDIT_LOG_ENV
    from dyntools.pipeline.dyntools import Dyntools
    from dyntools.pipeline.usage import parse_duration
    from dyntools.registry.core import Registry

    output = "json" if as_json and fmt is None else (fmt or "text")
    try:
        since = parse_duration(since_text)
    except ValueError as exc:
        raise click.UsageError(f"--since: {exc}") from None
    sandbox = sandbox_options(allowlist, require_layers, timeout, capabilities,
                              allow_weaker_sandbox)
    try:
        root = registry_root(registry_path, must_exist=True)
        keys = trusted_keys_option(trusted_keys)
        setup_logging(log_level, root, audit=False, audit_log=None)
        registry = Registry.open(root, sandbox.policy, create=False, trusted_keys=keys)
        read_log = audit_log or os.environ.get(AUDIT_LOG_ENV) or None
        with Dyntools(registry, keep_failed_calls=False, **sandbox.args) as dt:
            report = dt.health(since=since, stale_days=stale_days, audit_log=read_log,
                               jobs=jobs)
    except DyntoolsError as exc:
        from dyntools.cli.registry_cmd import _fail

        _fail(exc)
        return
    if output == "json":
        click.echo(json.dumps(report, indent=2))
    elif output == "sarif":
        click.echo(json.dumps(to_sarif(report), indent=2))
    else:
        click.echo(render_text(report))
    below = [e for e in report["unverified"] if e["reason"] == "layer_unavailable"]
    if below:
        click.echo(f"error: {len(below)} version(s) could not run here: "
                   f"{terminal_safe(below[0]['why'])}", err=True)
        sys.exit(EXIT_LAYER)
    sys.exit(EXIT_HEALTHY if report["ok"] else EXIT_UNHEALTHY)


@main.command(epilog=EXIT_EPILOG)
@click.argument("name")
@click.option("--params", "params_text", default=None,
              help="The params of the failing call (a JSON object).")
@click.option("--call", "call_id", default=None,
              help="Or the id of a failed call whose params were kept (its execute event's "
                   "`id` in the audit log).")
@click.option("--expected", "expected_text", required=True,
              help="The result the call should have given (a JSON object).")
@click.option("--reason", default=None, help="Why the result is wrong (recorded).")
@click.option("--exchanges", "exchanges_text", default=None,
              help="For a tool that makes HTTP requests: the call's recorded exchanges (a "
                   "JSON list, as an example's \"http\").")
@generator_options
@click.option("--require-approval", is_flag=True,
              help="Hold the repaired version for a reviewer (pending, exit 17) whatever the "
                   "registry's approval policy.")
@sign_key_click
@common_options
def repair(name: str, params_text: str | None, call_id: str | None, expected_text: str,
           reason: str | None, exchanges_text: str | None, require_approval: bool,
           sign_key: str | None, registry_path: str | None, allowlist: str | None,
           timeout: float | None, require_layers: str | None, allow_weaker_sandbox: bool,
           log_level: str, as_json: bool, executor: str | None, ray_address: str | None,
           trusted_keys: str | None, audit_log: str | None, capabilities: str | None,
           **generator: Any) -> None:
    """Repair tool NAME from a failing call: --params (or --call ID) and the --expected
    result become a counterexample; the generator gets the current source and the failure,
    and the new version must pass the counterexample and the whole contract.

    It then follows the registry's approval policy: exit 0 current, 17 pending a reviewer;
    12 when no attempt passes (nothing is written but audit events).
    """
    from dyntools.cli.ensure_cmd import StationDisplay
    from dyntools.pipeline.dyntools import Dyntools
    from dyntools.pipeline.repair import CLI

    if (params_text is None) == (call_id is None):
        raise click.UsageError("give the failing call's --params, or --call ID (not both)")
    params = json_option(params_text, "--params")
    expected = json_option(expected_text, "--expected")
    exchanges = json_option(exchanges_text, "--exchanges", kind=list)
    sandbox = sandbox_options(allowlist, require_layers, timeout, capabilities,
                              allow_weaker_sandbox)
    display = StationDisplay.on_stderr(as_json)
    try:
        signer = signer_option(sign_key)
        built = generator_from(generator, policy=sandbox.policy, capabilities=sandbox.granted)
        echo_model_notice(built)
        registry = open_registry(registry_path, sandbox.policy, trusted_keys, log_level,
                                 audit_log, must_exist=True)
        with Dyntools(registry, generator=built, max_attempts=generator["max_attempts"],
                      signer=signer, executor=executor, ray_address=ray_address,
                      allow_unreviewed_repairs=True, **sandbox.args) as dt:
            result = dt.repair(name, params, expected, reason=reason, call=call_id,
                               exchanges=exchanges, require_approval=require_approval,
                               requested_by=CLI, on_station=display)
    except DyntoolsError as exc:
        if not as_json and isinstance(exc.details.get("attempts"), list):
            echo_error(exc, _attempt_lines(exc.details["attempts"]))
            from dyntools.cli.common import exit_code_for

            sys.exit(exit_code_for(exc))
        fail(exc, as_json, display.events)
        return
    if as_json:
        click.echo(json.dumps({"ok": not result.pending, **result.as_dict()}, indent=2))
    elif result.pending:
        click.echo(f"{name} v{result.version}: repaired v{result.repaired} and verified; "
                   f"pending approval ({result.held}): it is not served until a reviewer "
                   "approves it")
        click.echo(f"  read it:    dyntools show {name} --version {result.version}")
        click.echo(f"  approve it: {result.approve_command} [--reason TEXT] [--sign-key KEY]")
    else:
        click.echo(f"{name} v{result.version}: repaired v{result.repaired} "
                   f"({len(result.attempts)} attempt(s)), verified with the counterexample "
                   "and the contract, and activated")
    if result.pending:
        sys.exit(EXIT_PENDING)


def _attempt_lines(attempts: list[Any]) -> list[str]:
    """Each attempt's findings, escaped (a model's code and a tool's results are quoted)."""
    lines = []
    for attempt in attempts:
        if not isinstance(attempt, dict):
            continue
        lines.append(f"  attempt {attempt.get('attempt')} ({attempt.get('stage')}):")
        for finding in attempt.get("findings") or []:
            lines.append(f"    {finding.get('line')}:{finding.get('col')}: "
                         f"{finding.get('code')} {terminal_safe(str(finding.get('message')))}")
    return lines
