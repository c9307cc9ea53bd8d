"""What `dyntools ensure` and `dyntools call` share: their exit codes, how they fail and how
they open the registry.

A module of its own, so that `dyntools call` (call_cmd.py) loads none of what only `ensure`
needs (the generators' names and models, the station display, the catalog): a cold call's
start-up is its cost (bench/startup.py, tests/test_startup.py). The options they share are in
options.py (`common_options`).

Exit codes (the same numbers as `exec` for the sandbox reasons):
    0 ok                      8 sandbox_violation
    1 unsafe_source (gate)    9 worker_crashed
    2 usage: bad option, bad  10 layer_unavailable
      name, unknown tool,     11 any other sandbox error
      invalid params, policy, 12 verification_failed
      bad registry path       13 generation failed (refusal, timeout, rate limit, no code, ...)
    3 compile_error           14 generation auth: no key, or the key was refused; with trusted
    4 runtime_error              keys, a decision without a trusted signing key
    5 timeout                    (signing_key_required)
    6 memory_limit            15 no_template (offline generator)
    7 bad_result              16 registry: persist_failed (a read-only registry),
                                 runs_folder_unsafe (.runs is a symlink), version_unusable,
                                 registry_error; with trusted keys chain_mismatch, no_chain,
                                 trust_state (the decision chain does not vouch for the tool)
                              17 pending approval (the version waits for a reviewer)
                              18 http_error: a host request of the tool failed (4xx/5xx,
                                 timeout, DNS, ...) and the tool let host.HttpError end the
                                 call
                              130 SIGINT, 143 SIGTERM
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from dyntools.base.terminal import terminal_safe
from dyntools.cli.options import echo_error, registry_root, setup_logging, trusted_keys_option
from dyntools.errors import (
    BadResult,
    ChainMismatch,
    DyntoolsError,
    GateRejected,
    GenerationAuthError,
    GenerationError,
    GenerationNoTemplate,
    LayerUnavailable,
    LoadError,
    NoChain,
    PendingApproval,
    PersistError,
    PolicyLoadError,
    RegistryError,
    SandboxError,
    SandboxMemoryLimit,
    SandboxTimeout,
    SandboxViolation,
    SigningKeyRequired,
    ToolHttpError,
    ToolRuntimeError,
    TrustStateError,
    UnknownTool,
    UnknownVersion,
    UsageError,
    VerificationFailed,
    WorkerCrashed,
)

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
    (ToolHttpError, 18),
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
    (SigningKeyRequired, 14),
    (ChainMismatch, 16),
    (NoChain, 16),
    (TrustStateError, 16),
    (PersistError, 16),
    (RegistryError, 16),
)
EXIT_OTHER = 16
EXIT_EPILOG = (
    "Exit codes: 0 ok, 1 unsafe_source, 2 usage (incl. unknown tool, invalid params), "
    "3 compile_error, 4 runtime_error, 5 timeout, 6 memory_limit, 7 bad_result, "
    "8 sandbox_violation, 9 worker_crashed, 10 layer_unavailable, 11 other sandbox error, "
    "12 verification_failed, 13 generation failed, 14 no key or key refused (with trusted "
    "keys: a decision without a trusted signing key), 15 no_template, 16 registry error (a "
    "read-only registry; with trusted keys chain_mismatch, no_chain), 17 pending approval, "
    "18 http_error (a host request failed and the tool did not catch it), 70 a bug in "
    "dyntools (one line; the traceback is in the audit log), 130 SIGINT, 143 SIGTERM."
)


def exit_code_for(error: DyntoolsError) -> int:
    for cls, code in EXIT_CODES:
        if isinstance(error, cls):
            return code
    return EXIT_OTHER


def fail(error: DyntoolsError, as_json: bool, stations: list[Any]) -> None:
    """The error on stderr (or as JSON on stdout, with the stations that ran), then exit
    with its code."""
    code = exit_code_for(error)
    if as_json:
        click.echo(json.dumps({"ok": False, "error": error.as_dict(),
                         "stations": [e.as_dict() for e in stations]}, indent=2))
    else:
        findings = error.details.get("findings", []) if isinstance(error, GateRejected) else []
        echo_error(error, (f"  {f['line']}:{f['col']}: {f['code']} "
                           f"{terminal_safe(f['message'])}" for f in findings))
        echo_earlier_attempts(error.details.get("earlier_attempts"))
        call_id = error.details.get("call_id")
        tool = error.details.get("tool")
        if error.details.get("params_kept") is True and isinstance(call_id, str) and \
                isinstance(tool, str):
            click.echo(f"  call {call_id}: dyntools repair {tool} --call {call_id} "
                       "--expected JSON turns it into a counterexample", err=True)
    sys.exit(code)


def echo_earlier_attempts(attempts: Any) -> None:
    """On stderr, what the gate said of each refused attempt before the last (its findings
    went back to the model): `earlier_attempts` as generators/loop.py records it."""
    if not isinstance(attempts, list) or not attempts:
        return
    click.echo(f"the gate refused {len(attempts)} earlier attempt(s); each one's findings "
               "went back to the model:", err=True)
    for attempt in attempts:
        if not isinstance(attempt, dict):
            continue
        click.echo(f"  attempt {attempt.get('attempt')}:", err=True)
        for finding in attempt.get("findings") or []:
            click.echo(f"    {terminal_safe(finding)}", err=True)
        if attempt.get("more"):
            click.echo(f"    ... and {attempt['more']} more", err=True)


def open_registry(registry_path: str | None, policy: Any, trusted_keys: str | None,
                  log_level: str, audit_log: str | None, *, must_exist: bool) -> Any:
    """The checked registry path (one line and exit 2 when it is a file, missing or
    unreadable), logging with its audit trail, and the registry opened under the trusted keys.
    A missing registry is created only when it need not exist (ensure)."""
    from dyntools.registry.core import Registry

    root = registry_root(registry_path, must_exist=must_exist)
    keys = trusted_keys_option(trusted_keys)
    setup_logging(log_level, root, audit=True, audit_log=audit_log)
    return Registry.open(root, policy, create=not root.exists(), trusted_keys=keys,
                         lazy=True)
