"""`dyntools ensure NAME`: generate what is missing, through every station.

`ensure` shows the stations as they run: one line per station, updated in place on a terminal,
plain lines when stderr is piped (and none with --json, whose output lists them). With
--params it then calls the tool and prints the result. Its exit codes are `call`'s
(dyntools/cli/common.py lists them); `dyntools call` itself lives in call_cmd.py, which loads
nothing of generation.
"""

from __future__ import annotations

import json
import sys
import time
from typing import IO, Any, ClassVar

import click

from dyntools.base.terminal import terminal_safe
from dyntools.cli.app import main
from dyntools.cli.common import (
    EXIT_CODES,
    EXIT_EPILOG,
    EXIT_OK,
    EXIT_OTHER,
    EXIT_PENDING,
    echo_earlier_attempts,
    exit_code_for,
    fail,
    open_registry,
)
from dyntools.cli.options import (
    common_options,
    echo_model_notice,
    json_option,
    sandbox_options,
    sign_key_click,
    signer_option,
)
from dyntools.errors import DyntoolsError
from dyntools.generators.factory import DEFAULT_GENERATOR, GENERATOR_NAMES, MODEL_GENERATORS

__all__ = ["EXIT_CODES", "EXIT_OK", "EXIT_OTHER", "EXIT_PENDING", "StationDisplay", "ensure",
           "exit_code_for"]

DETAIL_CHARS = 100


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

    @classmethod
    def on_stderr(cls, as_json: bool) -> StationDisplay:
        """What a command that runs stations shows: live on a terminal, nothing with --json
        (the events are kept either way, for `fail`)."""
        return cls(sys.stderr, live=sys.stderr.isatty(), enabled=not as_json)

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
           require_layers: str | None, allow_weaker_sandbox: bool, log_level: str,
           as_json: bool,
           executor: str | None, ray_address: str | None,
           trusted_keys: str | None, audit_log: str | None,
           capabilities: str | None) -> None:
    """Make sure tool NAME exists: look it up, else generate, gate, verify and activate it.

    Before generating, a --description is searched for among the existing tools: one doing
    the same job is reported (`similar: word_count (0.82)`), and served instead with
    --reuse-similar. With --params, call the tool afterwards and print the result.
    """
    from dyntools.catalog.core import Catalog
    from dyntools.generators import ToolSpec, build_generator
    from dyntools.pipeline.dyntools import Dyntools
    from dyntools.pipeline.ensure import identical_versions

    schema = json_option(schema_text, "--schema")
    examples = [json_option(text, "--example") for text in example_texts]
    params = json_option(params_text, "--params")
    if contract_change and not new_version:
        raise click.UsageError("--contract-change only applies with --new-version")
    sandbox = sandbox_options(allowlist, require_layers, timeout, capabilities,
                              allow_weaker_sandbox)
    policy, granted = sandbox.policy, sandbox.granted
    display = StationDisplay.on_stderr(as_json)
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
        registry = open_registry(registry_path, policy, trusted_keys, log_level, audit_log,
                                  must_exist=False)
        with Dyntools(registry, generator=generator, max_attempts=max_attempts, signer=signer,
                      executor=executor, ray_address=ray_address, **sandbox.args,
                      # the operator at a terminal: a --contract-change that drops a repair's
                      # counterexamples follows the registry's policy, as `repair` does
                      allow_unreviewed_repairs=True) as dt:
            similar = []
            missing = not new_version and dt.tool(name) is None
            if description.strip() and missing:
                similar = Catalog(dt, generate=False).similar(spec)
                if similar and not as_json:
                    _echo_similar(similar, reuse_similar)
            if reuse_similar and missing and not similar and not as_json:
                _echo_nothing_similar(name, bool(description.strip()))
            served = similar[0].name if similar and reuse_similar else name
            if served != name:
                result = dt.ensure(ToolSpec(served, examples=spec.examples),
                                   on_station=display)
                _record_alias(registry, name, result.name, similar[0].score, signer)
            else:
                result = dt.ensure(spec, new_version=new_version,
                                   contract_change=contract_change, on_station=display,
                                   require_approval=require_approval)
            identical = (identical_versions(registry.versions(result.name), result.record)
                         if result.created else [])
            if result.pending:
                _pending_exit(result, as_json, similar, identical)
            called = (_timed_call(dt, name, params, display, result.version)
                      if params is not None else None)
    except DyntoolsError as exc:
        fail(exc, as_json, display.events)
        return
    _report(name, result, similar=similar, identical=identical, called=called,
            params_given=params is not None, as_json=as_json)


def _record_alias(registry: Any, name: str, served: str, score: float, signer: Any) -> None:
    """--reuse-similar: `name` becomes an alias of the tool that does its job, so the name
    the agent asked for is callable; when it cannot be (a read-only registry, a key the
    trusted keys do not list), say so plainly, and fail."""
    try:
        registry.set_alias(name, served, signer=signer,
                           reason=f"ensure --reuse-similar: {served} does the same job "
                                  f"(similarity {score:.2f})")
    except DyntoolsError as exc:
        click.echo(f"{name} was NOT made an alias of {served}, so {name} is not callable: "
                   f"{terminal_safe(exc.message)}; call {served} instead", err=True)
        raise


def _report(name: str, result: Any, *, similar: list[Any], identical: list[int],
            called: dict[str, Any] | None, params_given: bool, as_json: bool) -> None:
    """What ensure did, on stdout: as JSON, or a line (and the call's result)."""
    alias_of = result.name if result.name != name else None
    if as_json:
        click.echo(json.dumps({"ok": True, **result.as_dict(),
                               "similar": [{"name": h.name, "score": h.score} for h in similar],
                               "reused": alias_of, "alias_of": alias_of,
                               "identical_to": identical,
                               **({"result": called} if params_given else {})}, indent=2))
        return
    if alias_of is not None and similar:
        click.echo(f"{name}: served by {alias_of} v{result.version}, which does the same job "
                   f"(nothing generated); {name} is now an alias of {alias_of} (dyntools "
                   f"unalias {name} removes it)")
    elif alias_of is not None:
        click.echo(f"{name}: an alias of {alias_of} (v{result.version} served; nothing "
                   "generated)")
    else:
        how = (f"generated by {result.record.provenance.get('generator')}, verified and "
               "activated" if result.created else "already in the registry (nothing generated)")
        click.echo(f"{name} v{result.version}: {how}{_same_as(result, identical)}")
        if result.created:
            echo_earlier_attempts(result.record.provenance.get("earlier_attempts"))
    if called is not None:
        click.echo(json.dumps(called))


def _same_as(result: Any, identical: list[int]) -> str:
    """` (byte-identical to v1: ...)` when the new version holds an older one's bytes."""
    if not identical:
        return ""
    older = ", ".join(f"v{v}" for v in identical)
    return (f" (byte-identical to {older}: the same code, recorded as a new version; "
            f"dyntools diff {result.name} {identical[-1]} {result.version} shows no change)")


def _pending_exit(result: Any, as_json: bool, similar: list[Any],
                  identical: list[int]) -> None:
    """A verified version that waits for a reviewer: a summary, and exit 17."""
    if as_json:
        click.echo(json.dumps({"ok": False, **result.as_dict(),
                               "similar": [{"name": h.name, "score": h.score} for h in similar],
                               "reused": None, "identical_to": identical}, indent=2))
    else:
        record = result.record
        how = ("generated, gated and verified" if result.created
               else "already waiting (nothing generated)")
        click.echo(f"{record.name} v{record.version}: pending approval ({how}); it is not "
                   f"served until a reviewer approves it{_same_as(result, identical)}")
        if result.created:
            echo_earlier_attempts(record.provenance.get("earlier_attempts"))
        click.echo(f"  read it:    dyntools show {record.name} --version {record.version}")
        click.echo(f"  approve it: {result.approve_command} [--reason TEXT] [--sign-key KEY]")
        click.echo(f"  reject it:  dyntools reject {record.name} {record.version} --reason TEXT")
    sys.exit(EXIT_PENDING)


def _echo_similar(similar: list[Any], reused: bool) -> None:
    listed = ", ".join(f"{hit.name} ({hit.score:.2f})" for hit in similar)
    hint = ("serving it instead of generating" if reused
            else "--reuse-similar serves it instead of generating")
    click.echo(f"similar: {listed}; {hint}", err=True)


def _echo_nothing_similar(name: str, described: bool) -> None:
    """--reuse-similar found nothing to serve: say so before `name` is generated, so nobody
    takes the new tool for a reused one."""
    from dyntools.catalog.core import SIMILAR_THRESHOLD

    why = (f"no current tool does this job (a similarity of {SIMILAR_THRESHOLD:.2f} or more "
           f"and params that fit)" if described else
           "not looked for: --reuse-similar compares descriptions and none was given "
           "(--description TEXT)")
    click.echo(f"similar: {why}; generating {name}", err=True)


def _timed_call(dt: Any, name: str, params: dict[str, Any], display: StationDisplay,
                version: int) -> dict[str, Any]:
    from dyntools.pipeline.events import StationEvent

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
