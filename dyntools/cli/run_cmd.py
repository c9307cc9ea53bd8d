"""`dyntools run FILE|-` and `dyntools resume RUN_ID`: a code-mode script over the registry.

    dyntools run script.py --input '{"title": "Hello World"}'     the result JSON on stdout
    dyntools run - --json < script.py                             status, run_id, result,
                                                                  output, trace (findings,
                                                                  error, waiting)
    dyntools resume 3f2a9c0d1b2e4f56                              after approve or reject

The script is gated first (dyntools/gate/script.py): a refused one prints its findings as
`check` does and exits 1. A run exits 0 when ok, 17 when it waits for a decision (a tool it
called has only a pending version: approve or reject it, then resume), and `call`'s codes
for the rest (4 the script raised, 5 its timeout, 8 a sandbox violation, 11 a run limit or a
replay that diverged, ...). Without --json, what the script printed goes to stderr (escaped)
and the result to stdout.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import click

from dyntools.base.terminal import terminal_safe
from dyntools.cli.app import main
from dyntools.cli.common import EXIT_EPILOG, EXIT_OK, EXIT_PENDING, exit_code_for
from dyntools.cli.options import (
    allow_weaker_click,
    allowlist_click,
    audit_log_option,
    capabilities_click,
    echo_error,
    executor_options,
    json_outcome_click,
    log_level_click,
    registry_click,
    require_layers_click,
    trusted_keys_click,
    with_options,
)

RUN_EPILOG = ("Exit codes: 0 ok, 1 the gate refuses the script, 17 it waits for a decision "
              "(then dyntools resume RUN_ID), and for the rest "
              + EXIT_EPILOG[len("Exit codes: "):])

# The options every command that runs scripts takes (their keyword arguments' names).
RUN_OPTIONS: list[Callable[[Any], Any]] = [
    registry_click, allowlist_click, require_layers_click, allow_weaker_click, log_level_click,
    json_outcome_click, executor_options, trusted_keys_click, audit_log_option,
    capabilities_click,
]
run_options = with_options(RUN_OPTIONS)


@main.command(epilog=RUN_EPILOG)
@click.argument("file")
@click.option("--input", "input_text", default=None,
              help="The script's inputs, as a JSON object (read as `inputs`).")
@click.option("--timeout", type=float, default=None,
              help="The whole run's wall-clock limit, in seconds, across a wait and its "
                   "resume (default 30; each tool call also keeps its own limit).")
@click.option("--max-tool-calls", type=int, default=None,
              help="Most tool calls the run may make, a resume's included (default 100).")
@click.option("--max-depth", type=int, default=None,
              help="How deep the tools it calls may compose others: 1 lets them compose "
                   "none (default and most: 3).")
@click.option("--max-output", type=int, default=None,
              help="Most bytes the script may print over the run (default 65536).")
@run_options
def run(file: str, input_text: str | None, timeout: float | None,
        max_tool_calls: int | None, max_depth: int | None, max_output: int | None,
        registry_path: str | None, allowlist: str | None, require_layers: str | None,
        allow_weaker_sandbox: bool, log_level: str, as_json: bool, executor: str | None,
        ray_address: str | None, trusted_keys: str | None, audit_log: str | None,
        capabilities: str | None) -> None:
    """Gate FILE ('-' reads stdin) as a code-mode script and run it in the sandbox.

    The script reads its input as `inputs`, calls the registry's current tools as
    `tools.NAME(key=value)` (each in its own sandboxed worker, under its own capabilities),
    may print, and answers with the value it binds to `result`.
    """
    from dyntools.cli.check_cmd import read_source
    from dyntools.cli.options import json_option, policy_option

    inputs = json_option(input_text, "--input") if input_text is not None else {}
    limits = {key: value for key, value in (
        ("timeout", timeout), ("max_tool_calls", max_tool_calls), ("max_depth", max_depth),
        ("max_output", max_output)) if value is not None}
    policy = policy_option(allowlist)
    source = read_source(file, policy.limits.max_bytes)
    label = "<stdin>" if file == "-" else file

    def act(dt: Any) -> Any:
        return dt.run_code(source, inputs, limits=limits)

    _with_dyntools(act, label, registry_path, policy, require_layers, allow_weaker_sandbox,
                   log_level, as_json, executor, ray_address, trusted_keys, audit_log,
                   capabilities)


@main.command(epilog=RUN_EPILOG)
@click.argument("run_id")
@click.option("--timeout", type=float, default=None,
              help="The most seconds this resume may take; never more than the run has left "
                   "of its own --timeout (limits hold over the whole run).")
@run_options
def resume(run_id: str, timeout: float | None, registry_path: str | None,
           allowlist: str | None,
           require_layers: str | None, allow_weaker_sandbox: bool, log_level: str,
           as_json: bool, executor: str | None, ray_address: str | None,
           trusted_keys: str | None, audit_log: str | None, capabilities: str | None) -> None:
    """Continue script run RUN_ID after the decision it waited for.

    The kept script is gated again, its recorded tool calls are answered from the record
    (none runs twice, and a script that calls differently ends with replay_diverged), and
    the call it waited at runs now. Exits as `run` does (17 again while nothing is decided).
    """
    from dyntools.cli.options import policy_option

    policy = policy_option(allowlist)

    def act(dt: Any) -> Any:
        return dt.resume_run(run_id, timeout=timeout)

    _with_dyntools(act, "<script>", registry_path, policy, require_layers,
                   allow_weaker_sandbox, log_level, as_json, executor, ray_address,
                   trusted_keys, audit_log, capabilities)


def _with_dyntools(act: Any, label: str, registry_path: str | None, policy: Any,
                   require_layers: str | None, allow_weaker_sandbox: bool, log_level: str,
                   as_json: bool, executor: str | None, ray_address: str | None,
                   trusted_keys: str | None, audit_log: str | None,
                   capabilities: str | None) -> None:
    from dyntools.cli.common import fail, open_registry
    from dyntools.cli.options import (
        allow_weaker_option,
        capability_policy_option,
        require_layers_option,
        sandbox_limits,
    )
    from dyntools.errors import DyntoolsError
    from dyntools.pipeline.dyntools import Dyntools

    layers = require_layers_option(require_layers)
    granted = capability_policy_option(capabilities)
    try:
        registry = open_registry(registry_path, policy, trusted_keys, log_level, audit_log,
                                 must_exist=True)
        with Dyntools(registry, limits=sandbox_limits(None), require_layers=layers,
                      executor=executor, ray_address=ray_address, pool_size=1,
                      capabilities=granted,
                      allow_weaker_sandbox=allow_weaker_option(allow_weaker_sandbox)) as dt:
            outcome = act(dt)
    except DyntoolsError as exc:
        fail(exc, as_json, [])
        return
    sys.exit(report_outcome(outcome, label, as_json))


def report_outcome(outcome: Any, label: str, as_json: bool) -> int:
    """Print `outcome` (a RunOutcome) and return the exit code."""
    from dyntools.codemode.record import OK, REFUSED, WAITING

    status = outcome.status
    code = (EXIT_OK if status == OK else 1 if status == REFUSED else
            EXIT_PENDING if status == WAITING else
            exit_code_for(outcome.error) if outcome.error is not None else 16)
    if as_json:
        # ASCII JSON, as `call` prints: a script's or a tool's text never reaches the
        # terminal as raw C1 controls or bidi overrides (\x9b, \u202e)
        click.echo(json.dumps(outcome.as_dict(), indent=2))
        return code
    if outcome.output:
        click.echo(terminal_safe(outcome.output), err=True, nl=False)
    if status == REFUSED:
        path = terminal_safe(label)
        click.echo("\n".join(f"{path}:{f['line']}:{f['col']}: {f['code']} "
                             f"{terminal_safe(f['message'])}" for f in outcome.findings))
        click.echo(f"run {outcome.run_id}: refused by the gate; nothing ran", err=True)
    elif status == WAITING:
        waiting = outcome.waiting or {}
        tool = terminal_safe(str(waiting.get("tool")))
        click.echo(f"run {outcome.run_id} waits: tool call {waiting.get('call')} reached "
                   f"{tool} v{waiting.get('version')}, which is pending approval", err=True)
        command = waiting.get("approve_command")
        if command:
            click.echo(f"  approve it: {terminal_safe(str(command))} (or reject it)", err=True)
        click.echo(f"  then:       dyntools resume {outcome.run_id}", err=True)
    elif status == OK:
        click.echo(json.dumps(outcome.result))
        click.echo(f"run {outcome.run_id}: ok, {len(outcome.trace)} tool call(s)", err=True)
    else:
        if outcome.error is not None:
            echo_error(outcome.error)
        click.echo(f"run {outcome.run_id}: error", err=True)
    return code
