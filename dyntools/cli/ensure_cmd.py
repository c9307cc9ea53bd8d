"""`dyntools ensure NAME` (generate what is missing, through every station) and `dyntools call`.

`ensure` shows the stations as they run: one line per station, updated in place on a terminal,
plain lines when stderr is piped (and none with --json, whose output lists them). With
--params it then calls the tool and prints the result.

Exit codes (the same numbers as `exec` for the sandbox reasons):
    0 ok                      8 sandbox_violation
    1 unsafe_source (gate)    9 worker_crashed
    2 usage: bad option, bad  10 layer_unavailable
      name, unknown tool,     11 any other sandbox error
      invalid params, policy, 12 verification_failed
      bad registry path       13 generation failed (refusal, timeout, rate limit, no code, ...)
    3 compile_error           14 generation auth: no key, or the key was refused
    4 runtime_error           15 no_template (offline generator)
    5 timeout                 16 registry: persist_failed (a read-only registry), version_unusable,
    6 memory_limit               registry_error
    7 bad_result              17 pending approval (the version waits for a reviewer)
                              130 SIGINT, 143 SIGTERM
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import IO, Any, ClassVar

import click

from dyntools.cli.app import main
from dyntools.cli.options import (
    EXECUTOR_HELP,
    RAY_ADDRESS_HELP,
    audit_log_option,
    capabilities_click,
    capability_policy_option,
    echo_error,
    echo_model_notice,
    json_option,
    registry_root,
    sandbox_limits,
    setup_logging,
    sign_key_click,
    signer_option,
    trusted_keys_click,
    trusted_keys_option,
)
from dyntools.cli.options import require_layers as require_layers_option
from dyntools.errors import (
    BadResult,
    DyntoolsError,
    GateRejected,
    GenerationAuthError,
    GenerationError,
    GenerationNoTemplate,
    LayerUnavailable,
    LoadError,
    PendingApproval,
    PersistError,
    PolicyLoadError,
    RegistryError,
    SandboxError,
    SandboxMemoryLimit,
    SandboxTimeout,
    SandboxViolation,
    ToolRuntimeError,
    UnknownTool,
    UnknownVersion,
    UsageError,
    VerificationFailed,
    WorkerCrashed,
)
from dyntools.generators.factory import DEFAULT_GENERATOR, GENERATOR_NAMES, MODEL_GENERATORS
from dyntools.terminal import terminal_safe

EXIT_OK = 0
EXIT_PENDING = 17
# Most specific first: the first matching class decides.
EXIT_CODES: tuple[tuple[type[DyntoolsError], int], ...] = (
    (GateRejected, 1),
    (PolicyLoadError, 2),
    (UnknownTool, 2),
    (UnknownVersion, 2),
    (UsageError, 2),
    (LoadError, 3),
    (ToolRuntimeError, 4),
    (SandboxTimeout, 5),
    (SandboxMemoryLimit, 6),
    (BadResult, 7),
    (SandboxViolation, 8),
    (WorkerCrashed, 9),
    (LayerUnavailable, 10),
    (SandboxError, 11),
    (VerificationFailed, 12),
    (GenerationNoTemplate, 15),
    (GenerationAuthError, 14),
    (GenerationError, 13),
    (PendingApproval, EXIT_PENDING),
    (PersistError, 16),
    (RegistryError, 16),
)
EXIT_OTHER = 16
DETAIL_CHARS = 100
EXIT_EPILOG = (
    "Exit codes: 0 ok, 1 unsafe_source, 2 usage (incl. unknown tool, invalid params), "
    "3 compile_error, 4 runtime_error, 5 timeout, 6 memory_limit, 7 bad_result, "
    "8 sandbox_violation, 9 worker_crashed, 10 layer_unavailable, 11 other sandbox error, "
    "12 verification_failed, 13 generation failed, 14 no key or key refused, "
    "15 no_template, 16 registry error (a read-only registry), 17 pending approval, "
    "130 SIGINT, 143 SIGTERM."
)


def exit_code_for(error: DyntoolsError) -> int:
    for cls, code in EXIT_CODES:
        if isinstance(error, cls):
            return code
    return EXIT_OTHER


class StationDisplay:
    """Receives `StationEvent`s: a line rewritten in place on a terminal, plain lines else."""

    MARKS: ClassVar[dict[str, str]] = {
        "ok": "ok", "hit": "hit", "miss": "miss", "accepted": "ok", "approved": "ok",
        "new_version": "new", "pending": "wait",
    }

    def __init__(self, stream: IO[str], *, live: bool, enabled: bool = True) -> None:
        self.stream = stream
        self.live = live
        self.enabled = enabled
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        if event.finished:
            self.events.append(event)
        if not self.enabled:
            return
        if not event.finished:
            if self.live:
                text = click.style(f"  ... {event.station:<9} running", fg="cyan")
                self._write(f"\r{text}\x1b[K")
            return
        failed = event.outcome in ("failed", "rejected")
        mark = "FAIL" if failed else self.MARKS.get(event.outcome, event.outcome)
        duration = f"{event.duration_ms:9.2f} ms" if event.duration_ms is not None else ""
        version = f"v{event.version}" if event.version is not None else ""
        detail = terminal_safe(event.detail if len(event.detail) <= DETAIL_CHARS else (
            event.detail[:DETAIL_CHARS] + "..."))
        line = (f"  {mark:<4} {event.station:<9} {event.outcome:<11} {duration} "
                f"{version:<4} {detail}").rstrip()
        if self.live:
            line = click.style(line, fg="red" if failed else "green")
            self._write(f"\r{line}\x1b[K\n")
        else:
            self._write(line + "\n")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def _json_option(text: str | None, option: str, *, kind: type = dict) -> Any:
    return json_option(text, option, kind=kind)


def _fail(error: DyntoolsError, as_json: bool, stations: list[Any]) -> None:
    code = exit_code_for(error)
    if as_json:
        click.echo(json.dumps({"ok": False, "error": error.as_dict(),
                               "stations": [e.as_dict() for e in stations]}, indent=2))
    else:
        findings = error.details.get("findings", []) if isinstance(error, GateRejected) else []
        echo_error(error, (f"  {f['line']}:{f['col']}: {f['code']} "
                           f"{terminal_safe(f['message'])}" for f in findings))
    sys.exit(code)


_common = [
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
    for option in reversed(_common):
        command = option(command)
    return command


@main.command(epilog=EXIT_EPILOG)
@click.argument("name")
@click.option("--description", default="", help="What the tool should do (for a model).")
@click.option("--schema", "schema_text", default=None,
              help="The PARAMS JSON Schema the tool should take (for a model).")
@click.option("--example", "example_texts", multiple=True,
              help='An example the tool must pass: {"params": {...}, "result": {...}}. '
                   "Repeatable.")
@click.option("--params", "params_text", default=None,
              help="After ensuring, call the tool with these params (a JSON object).")
@click.option("--generator", "generator_name", default=DEFAULT_GENERATOR, show_default=True,
              type=click.Choice(GENERATOR_NAMES), help="Where new code comes from.")
@click.option("--from", "source_file", default=None,
              help="--generator file: the tool file ('-' reads stdin).")
@click.option("--model", default=None, help=f"Model id ({', '.join(MODEL_GENERATORS)}).")
@click.option("--base-url", default=None, help="API base URL (openai: Ollama, vLLM, ...).")
@click.option("--api-key-env", default=None, help="Variable holding the API key.")
@click.option("--temperature", type=float, default=None, help="Sampling temperature.")
@click.option("--max-tokens", type=int, default=None, help="Answer length limit.")
@click.option("--effort", default=None, help="anthropic: output effort.")
@click.option("--retries", type=int, default=None, help="Transport retries (429, 5xx).")
@click.option("--model-timeout", type=float, default=None,
              help="Seconds to wait for the model per request.")
@click.option("--max-attempts", type=click.IntRange(min=1), default=3, show_default=True,
              help="Generation attempts when the gate refuses (models only).")
@click.option("--new-version", is_flag=True,
              help="Generate a new version even if the tool exists.")
@click.option("--contract-change", is_flag=True,
              help="Let a new version drop the examples the current version passed.")
@click.option("--reuse-similar", is_flag=True,
              help="If NAME is missing and a tool doing the same job exists (similar "
                   "description, compatible params), serve that one instead of generating.")
@click.option("--require-approval", is_flag=True,
              help="Hold the new version for a reviewer (pending, exit 17) whatever the "
                   "registry's approval policy; a caller can only make the policy stricter.")
@sign_key_click
@common_options
def ensure(name: str, description: str, schema_text: str | None,
           example_texts: tuple[str, ...], params_text: str | None, generator_name: str,
           source_file: str | None, model: str | None, base_url: str | None,
           api_key_env: str | None, temperature: float | None, max_tokens: int | None,
           effort: str | None, retries: int | None, model_timeout: float | None,
           max_attempts: int, new_version: bool, contract_change: bool, reuse_similar: bool,
           require_approval: bool, sign_key: str | None,
           registry_path: str | None, allowlist: str | None, timeout: float | None,
           require_layers: str | None, log_level: str, as_json: bool,
           executor: str | None, ray_address: str | None,
           trusted_keys: str | None, audit_log: str | None,
           capabilities: str | None) -> None:
    """Make sure tool NAME exists: look it up, else generate, gate, verify and activate it.

    Before generating, a --description is searched for among the existing tools: one doing
    the same job is reported (`similar: word_count (0.82)`), and served instead with
    --reuse-similar. With --params, call the tool afterwards and print the result.
    """
    from dyntools.catalog import Catalog
    from dyntools.cli.check_cmd import policy_option
    from dyntools.generators import ToolSpec, build_generator
    from dyntools.pipeline import Dyntools

    schema = _json_option(schema_text, "--schema")
    examples = [_json_option(text, "--example") for text in example_texts]
    params = _json_option(params_text, "--params")
    if contract_change and not new_version:
        raise click.UsageError("--contract-change only applies with --new-version")
    policy = policy_option(allowlist)
    layers = require_layers_option(require_layers)
    limits = sandbox_limits(timeout)
    granted = capability_policy_option(capabilities)
    stream = sys.stderr
    display = StationDisplay(stream, live=stream.isatty(), enabled=not as_json)
    try:
        signer = signer_option(sign_key)
        spec = ToolSpec(name, description, schema, tuple(examples))
        generator = build_generator(
            generator_name, policy=policy, capabilities=granted, source_path=source_file,
            model=model,
            base_url=base_url, api_key_env=api_key_env, temperature=temperature,
            max_tokens=max_tokens, effort=effort, retries=retries, timeout=model_timeout,
        )
        echo_model_notice(generator)
        registry = _open_registry(registry_path, policy, trusted_keys, log_level, audit_log,
                                  must_exist=False)
        with Dyntools(registry, generator=generator, limits=limits, require_layers=layers,
                      max_attempts=max_attempts, signer=signer, executor=executor,
                      ray_address=ray_address, capabilities=granted) as dt:
            similar = []
            if description.strip() and not new_version and dt.tool(name) is None:
                similar = Catalog(dt, generate=False).similar(spec)
                if similar and not as_json:
                    _echo_similar(similar, reuse_similar)
            served = similar[0].name if similar and reuse_similar else name
            if served != name:
                result = dt.ensure(ToolSpec(served, examples=spec.examples),
                                   on_station=display)
            else:
                result = dt.ensure(spec, new_version=new_version,
                                   contract_change=contract_change, on_station=display,
                                   require_approval=require_approval)
            called: dict[str, Any] | None = None
            if result.pending:
                _pending_exit(result, as_json, similar)
            if params is not None:
                called = _timed_call(dt, served, params, display, result.version)
    except DyntoolsError as exc:
        _fail(exc, as_json, display.events)
        return
    if as_json:
        click.echo(json.dumps({"ok": True, **result.as_dict(),
                               "similar": [{"name": h.name, "score": h.score} for h in similar],
                               "reused": served if served != name else None,
                               **({"result": called} if params is not None else {})}, indent=2))
        return
    if served != name:
        click.echo(f"{name}: served by {served} v{result.version}, which does the same job "
                   "(nothing generated)")
    else:
        how = (f"generated by {result.record.provenance.get('generator')}, verified and "
               "activated" if result.created else "already in the registry (nothing generated)")
        click.echo(f"{name} v{result.version}: {how}")
    if called is not None:
        click.echo(json.dumps(called))


def _open_registry(registry_path: str | None, policy: Any, trusted_keys: str | None,
                   log_level: str, audit_log: str | None, *, must_exist: bool) -> Any:
    """The checked registry path (one line and exit 2 when it is a file, missing or
    unreadable), logging with its audit trail, and the registry opened under the trusted keys.
    A missing registry is created only when it need not exist (ensure)."""
    from dyntools.registry import Registry

    root = registry_root(registry_path, must_exist=must_exist)
    keys = trusted_keys_option(trusted_keys)
    setup_logging(log_level, root, audit=True, audit_log=audit_log)
    return Registry.open(root, policy, create=not root.exists(), trusted_keys=keys,
                         lazy=True)


def _pending_exit(result: Any, as_json: bool, similar: list[Any]) -> None:
    """A verified version that waits for a reviewer: a summary, and exit 17."""
    if as_json:
        click.echo(json.dumps({"ok": False, **result.as_dict(),
                               "similar": [{"name": h.name, "score": h.score} for h in similar],
                               "reused": None}, indent=2))
    else:
        record = result.record
        how = ("generated, gated and verified" if result.created
               else "already waiting (nothing generated)")
        click.echo(f"{record.name} v{record.version}: pending approval ({how}); it is not "
                   "served until a reviewer approves it")
        click.echo(f"  read it:    dyntools show {record.name} --version {record.version}")
        click.echo(f"  approve it: {result.approve_command} [--reason TEXT] [--sign-key KEY]")
        click.echo(f"  reject it:  dyntools reject {record.name} {record.version} --reason TEXT")
    sys.exit(EXIT_PENDING)


def _echo_similar(similar: list[Any], reused: bool) -> None:
    listed = ", ".join(f"{hit.name} ({hit.score:.2f})" for hit in similar)
    hint = ("serving it instead of generating" if reused
            else "--reuse-similar serves it instead of generating")
    click.echo(f"similar: {listed}; {hint}", err=True)


def _timed_call(dt: Any, name: str, params: dict[str, Any], display: StationDisplay,
                version: int) -> dict[str, Any]:
    from dyntools.pipeline import StationEvent

    display(StationEvent(name, "execute", "running", version=version))
    started = time.perf_counter()
    try:
        result: dict[str, Any] = dt.call(name, params)
    except DyntoolsError as exc:
        display(StationEvent(name, "execute", "failed", _ms(started), version, exc.reason,
                             exc.message))
        raise
    display(StationEvent(name, "execute", "ok", _ms(started), version, None,
                         "in the sandbox"))
    return result


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


@main.command(epilog=EXIT_EPILOG)
@click.argument("name")
@click.option("--params", "params_text", required=True, help="The params object, as JSON.")
@common_options
def call(name: str, params_text: str, registry_path: str | None, allowlist: str | None,
         timeout: float | None, require_layers: str | None, log_level: str,
         as_json: bool, executor: str | None, ray_address: str | None,
         trusted_keys: str | None, audit_log: str | None, capabilities: str | None) -> None:
    """Call the current version of tool NAME with --params; print the result JSON."""
    from dyntools.executors import ENV_EXECUTOR
    from dyntools.sandbox.pool import prestart

    if (executor or os.environ.get(ENV_EXECUTOR, "")).strip().lower() in ("", "local"):
        prestart()  # the worker's interpreter starts while the registry opens (sandbox/pool.py)
    from dyntools.cli.check_cmd import policy_option
    from dyntools.pipeline import Dyntools
    from dyntools.registry.records import require_valid_name

    params = _json_option(params_text, "--params")
    policy = policy_option(allowlist)
    layers = require_layers_option(require_layers)
    limits = sandbox_limits(timeout)
    granted = capability_policy_option(capabilities)
    try:
        require_valid_name(name)
        registry = _open_registry(registry_path, policy, trusted_keys, log_level, audit_log,
                                  must_exist=True)
        # One call: one worker (a second would only compete with it for the CPU).
        with Dyntools(registry, limits=limits, require_layers=layers, executor=executor,
                      ray_address=ray_address, pool_size=1, capabilities=granted) as dt:
            result = dt.call(name, params)
            record = registry.current(name)
    except DyntoolsError as exc:
        _fail(exc, as_json, [])
        return
    if as_json:
        click.echo(json.dumps({"ok": True, "tool": name,
                               "version": record.version if record else None,
                               "result": result}, indent=2))
    else:
        click.echo(json.dumps(result))
