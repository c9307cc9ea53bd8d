"""`dyntools exec FILE --params JSON` (gate, then one sandboxed run) and `dyntools doctor`.

Exit codes of `exec` (documented in the README):
    0 ok, 1 rejected by the gate, 2 usage, 3 compile_error, 4 runtime_error, 5 timeout,
    6 memory_limit, 7 bad_result, 8 sandbox_violation, 9 worker_crashed,
    10 layer_unavailable, 11 any other sandbox error, 18 http_error (a host request failed
    and the tool let its host.HttpError end the call).
`doctor` exits 0, or 10 when `--require-layers` names a layer that is not active.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from dyntools.base.terminal import terminal_safe
from dyntools.cli.app import main
from dyntools.cli.check_cmd import read_source
from dyntools.cli.options import (
    allow_weaker_click,
    allow_weaker_option,
    capabilities_click,
    capability_policy_option,
    echo_error,
    executor_options,
    json_option,
    policy_option,
    require_layers_option,
)
from dyntools.errors import DyntoolsError, LayerUnavailable, LoadError, SandboxError
from dyntools.gate import check_source
from dyntools.gate.findings import render_text

EXIT_OK, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2
EXIT_BY_REASON: dict[str, int] = {
    "compile_error": 3,
    "runtime_error": 4,
    "timeout": 5,
    "memory_limit": 6,
    "bad_result": 7,
    "sandbox_violation": 8,
    "worker_crashed": 9,
    "layer_unavailable": 10,
    "http_error": 18,
}
EXIT_OTHER_SANDBOX_ERROR = 11


def _parse_params(text: str) -> dict[str, Any]:
    params: dict[str, Any] = json_option(text, "--params")
    return params


def _fail(error: DyntoolsError, as_json: bool) -> None:
    code = EXIT_BY_REASON.get(error.reason, EXIT_OTHER_SANDBOX_ERROR)
    if as_json:
        click.echo(json.dumps({"ok": False, "error": error.as_dict()}, indent=2))
    else:
        echo_error(error)
    sys.exit(code)


@main.command("exec")
@click.argument("file")
@click.option("--params", "params_text", default="{}", show_default=True,
              help="The params object, as JSON (as for call, none means {}).")
@click.option("--timeout", type=float, default=None, help="Wall-clock limit in seconds.")
@click.option("--memory", type=int, default=None, help="Memory headroom in MiB.")
@click.option("--require-layers", default=None,
              help="Comma list of sandbox layers that must be active, or 'all'.")
@click.option("--disable-layer", "disable_layers", multiple=True, metavar="NAME",
              help="Switch a sandbox layer off to see what the others hold (repeatable; "
                   "for testing the sandbox, warns on stderr; it is an opt-in to run below "
                   "the default minimum, as --allow-weaker-sandbox is).")
@allow_weaker_click
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@click.option("--allowlist", type=click.Path(dir_okay=False), default=None,
              help="Policy file (default: DYNTOOLS_ALLOWLIST, else the shipped allowlist.toml).")
@capabilities_click
@click.option("--registry", "registry_path", default=None,
              help="Where host.call_tool finds the tools FILE composes (default: "
                   "DYNTOOLS_REGISTRY, else ./generated_tools); opened only if it calls one.")
def exec_command(file: str, params_text: str, timeout: float | None, memory: int | None,
                 require_layers: str | None, disable_layers: tuple[str, ...],
                 allow_weaker_sandbox: bool, as_json: bool, allowlist: str | None,
                 capabilities: str | None, registry_path: str | None) -> None:
    """Gate FILE, then run it once in the sandbox with --params (default {}); print the
    result JSON.

    A FILE that declares CAPABILITIES reaches only what they declare and the operator's
    --capabilities policy grants: its HTTP requests go through the host's broker, its
    host.call_tool calls to the registry's tools."""
    from dyntools.sandbox.limits import LAYERS, SandboxLimits
    from dyntools.sandbox.minimum import resolve_allow_weaker
    from dyntools.sandbox.pool import run_once_outcome

    params = _parse_params(params_text)
    required = require_layers_option(require_layers)
    disabled = frozenset(disable_layers)
    unknown = sorted(disabled - set(LAYERS))
    if unknown:
        raise click.UsageError(f"--disable-layer: unknown layer(s) {', '.join(unknown)}; "
                               f"known: {', '.join(LAYERS)}")
    both = sorted(disabled & required)
    if both:
        raise click.UsageError(f"--disable-layer and --require-layers both name "
                               f"{', '.join(both)}")
    if disabled:
        click.echo(f"warning: sandbox layer(s) switched off: {', '.join(sorted(disabled))}; "
                   "this run is weaker than the sandbox's default, for testing only",
                   err=True)
    policy = policy_option(allowlist)
    data = read_source(file, policy.limits.max_bytes)
    report = check_source(data, policy, path=file)
    if not report.accepted:
        if as_json:
            click.echo(json.dumps({"ok": False, "error": {
                "station": "gate", "reason": "unsafe_source",
                "message": f"the gate rejected {file}", "details": report.as_dict()}},
                indent=2))
        else:
            click.echo(render_text(report), err=True)
            click.echo(f"error: gate/unsafe_source: the gate rejected {terminal_safe(file)}",
                       err=True)
        sys.exit(EXIT_REJECTED)
    try:
        defaults = SandboxLimits()
        limits = SandboxLimits(
            timeout_s=timeout if timeout is not None else defaults.timeout_s,
            memory_mb=memory if memory is not None else defaults.memory_mb,
        )
    except ValueError as exc:
        raise click.UsageError(terminal_safe(exc)) from exc
    granted = capability_policy_option(capabilities)
    text = data.decode("utf-8")
    with _ExecHost(text, granted, policy, registry_path) as host:
        try:
            # The gated bytes are what runs: the file is not read a second time.
            outcome, layers = run_once_outcome(
                file, params, policy=policy, limits=limits, require_layers=required,
                source=text, host=host.calls, _skip_layers=disabled,
                # switching layers off is asking for a weaker sandbox: the opt-in
                allow_weaker_sandbox=bool(disabled) or resolve_allow_weaker(
                    allow_weaker_option(allow_weaker_sandbox)),
            )
        except (SandboxError, LoadError) as exc:
            _fail(host.redact_error(exc), as_json)
            return
        except DyntoolsError as exc:  # bad input, such as params over the size cap
            raise click.UsageError(terminal_safe(exc.message)) from exc
        outcome = host.redact_outcome(outcome)
    if as_json:
        click.echo(json.dumps({"ok": True, "result": outcome.result, "output": outcome.output,
                               "layers": layers}, indent=2))
    else:
        if outcome.output:
            click.echo(terminal_safe(outcome.output), err=True, nl=False)
        click.echo(json.dumps(outcome.result))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--require-layers", default=None,
              help="Comma list of sandbox layers that must be active, or 'all'.")
@executor_options
def doctor(as_json: bool, require_layers: str | None, executor: str | None,
           ray_address: str | None) -> None:
    """Probe which sandbox layers are active on this machine, and why any is not.

    With --executor ray, every node of the cluster is probed by its SandboxHost actor, and
    --require-layers must hold on every node."""
    from dyntools.executors import executor_name

    required = require_layers_option(require_layers)
    try:
        name = executor_name(executor)
    except DyntoolsError as exc:
        raise click.UsageError(terminal_safe(exc.message)) from exc
    if name == "ray":
        _doctor_cluster(as_json, required, ray_address)
        return
    if ray_address:
        raise click.UsageError("--ray-address applies to --executor ray")
    from dyntools.sandbox.doctor import doctor_report

    try:
        report = doctor_report()
    except DyntoolsError as exc:
        _fail(exc, as_json)
        return
    missing = sorted(name for name in required if not report["layers"][name]["active"])
    report["required_missing"] = missing
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        _echo_layers(report)
        if missing:
            click.echo(f"error: required layer(s) not active: {', '.join(missing)}", err=True)
    if missing:
        sys.exit(EXIT_BY_REASON[LayerUnavailable.reason])


def _echo_layers(report: dict[str, Any]) -> None:
    click.echo(f"python {report['python_version']} at {report['python']}")
    click.echo(f"seccomp binding: {report['seccomp_binding']}")
    click.echo("wall-clock timeout: active (host kills the worker's process group)")
    for name, entry in report["layers"].items():
        state = "active  " if entry["active"] else "INACTIVE"
        seen = "kernel" if entry.get("verified") == "kernel" else "report"
        click.echo(f"{name:15} {state} ({seen}) {entry['detail']}")
    phases = ", ".join(f"{k} {v:.2f}" for k, v in report["worker_startup_ms"].items())
    click.echo(f"worker start-up (ms): {phases}")
    _echo_minimum(report)


def _echo_minimum(report: dict[str, Any]) -> None:
    """The default minimum's verdict here, and the environment's opt-in (a report from an
    older node may have neither)."""
    minimum, env = report.get("minimum"), report.get("allow_weaker_sandbox_env")
    if not isinstance(minimum, dict) or not isinstance(env, dict):
        return
    if minimum["met"]:
        click.echo(f"default minimum ({minimum['rule']}): met; tool code runs here")
    else:
        click.echo(f"default minimum ({minimum['rule']}): NOT MET, missing "
                   f"{', '.join(minimum['missing'])}; tool code does not run here unless the "
                   "operator opts in (--allow-weaker-sandbox, DYNTOOLS_ALLOW_WEAKER_SANDBOX=1 "
                   "or Dyntools(..., allow_weaker_sandbox=True))")
    value = env["value"]
    shown = " is unset" if value is None else f"={terminal_safe(repr(value))}"
    verdict = ("opts in: tool code may run below the default minimum" if env["allows_weaker"]
               else "no opt-in (only 1 opts in)")
    click.echo(f"{env['name']}{shown}: {verdict}")


def _doctor_cluster(as_json: bool, required: frozenset[str], address: str | None) -> None:
    """Each node's layer report, from its SandboxHost actor; exit 10 when a required layer
    is missing on any node."""
    from dyntools.executors import PoolSettings, build_executor
    from dyntools.registry.policyload import load_allowlist

    try:
        executor = build_executor("ray", ray_address_=address)
        try:
            report = executor.doctor(PoolSettings(policy=load_allowlist(),
                                                  require_layers=required))
        finally:
            executor.close()
    except DyntoolsError as exc:
        _fail(exc, as_json)
        return
    missing: dict[str, list[str]] = {}
    for node in report["nodes"]:
        layers = node.get("layers", {})
        lacking = sorted(n for n in required if not layers.get(n, {}).get("active"))
        node["required_missing"] = lacking
        if lacking or "error" in node:
            missing[str(node.get("node_id"))] = lacking or ["(probe failed)"]
    report["required_missing"] = missing
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
    else:
        click.echo(f"executor ray, {len(report['nodes'])} node(s)")
        for node in report["nodes"]:
            host = terminal_safe(str(node.get("hostname")))
            click.echo(f"== node {node.get('node_id')} ({host})")
            if "error" in node:
                click.echo(f"error: {terminal_safe(str(node['error']))}")
                continue
            _echo_layers(node)
        for node_id, lacking in missing.items():
            click.echo(f"error: node {node_id}: required layer(s) not active: "
                       f"{', '.join(lacking)}", err=True)
    if missing:
        sys.exit(EXIT_BY_REASON[LayerUnavailable.reason])


class _ExecHost:
    """The host of one `exec` run: None for a file that declares no CAPABILITIES; otherwise
    its requests go through the broker under the operator's policy, and host.call_tool to
    the registry's tools (opened on the first one)."""

    def __init__(self, source: str, granted: Any, policy: Any,
                 registry_path: str | None) -> None:
        from dyntools.capabilities.hostcalls import CapabilityHost, HostCalls
        from dyntools.capabilities.policy import resolve_capability_policy
        from dyntools.pipeline.toolmeta import read_metadata
        from dyntools.registry.config import declared_capabilities

        self._capability_host = CapabilityHost(resolve_capability_policy(granted))
        self._policy = policy
        self._registry_path = registry_path
        self._dyntools: Any = None
        declared = declared_capabilities(source)
        self.calls: HostCalls | None = None
        if declared:
            name = read_metadata(source).name or "tool"
            self.calls = self._capability_host.live(tool=name, version=None,
                                                    declared=declared, tools=self._compose)

    def _compose(self, name: str, params: dict[str, Any], timeout: float,
                 chain: tuple[str, ...]) -> dict[str, Any]:
        if self._dyntools is None:
            from dyntools.cli.options import registry_root
            from dyntools.pipeline.dyntools import Dyntools
            from dyntools.registry.core import Registry

            root = registry_root(self._registry_path, must_exist=True)
            self._dyntools = Dyntools(Registry.open(root, self._policy),
                                      capabilities=self._capability_host.policy)
        result: dict[str, Any] = self._dyntools.call(name, params, timeout=timeout,
                                                     chain=chain)
        return result

    def redact_outcome(self, outcome: Any) -> Any:
        if self.calls is None:
            return outcome
        from dyntools.sandbox.runner import CallOutcome

        return CallOutcome(self.calls.redact(outcome.result), self.calls.redact(outcome.output))

    def redact_error(self, error: DyntoolsError) -> DyntoolsError:
        if self.calls is not None:
            error.message = self.calls.redact(error.message)
            error.details = self.calls.redact(error.details)
        return error

    def __enter__(self) -> _ExecHost:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._dyntools is not None:
            self._dyntools.close()
        self._capability_host.close()
