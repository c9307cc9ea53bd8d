"""One exception tree for every station of the pipeline.

The gate returns a report value (`GateReport`); every other station raises from this tree.
Callers that want values (the CLI, the adapters) catch `DyntoolsError` and read `station`,
`reason` and `as_dict()`. The tree is closed: tests/test_errors.py holds this drawing to the
classes, and every leaf to being raised somewhere in dyntools/ or listed in `RESERVED` with the
reason it exists before anything raises it.

    DyntoolsError                     station, reason, message, details
    ├── UsageError                    bad input from the caller (unknown tool, bad name, ...)
    │   ├── InvalidParams             reason "invalid_params" (params do not match the schema)
    │   ├── NothingToRepair           reason "nothing_to_repair" (the current version already
    │   │                             gives the repair's expected result)
    │   ├── ContractContradiction     reason "contract_contradiction" (a counterexample that
    │   │                             contradicts the tool's contract: a contract change)
    │   └── UnknownRun                reason "unknown_run" (no kept script run has this id)
    ├── PolicyLoadError               the allow-list cannot be read or parsed
    │   └── CapabilityPolicyError     reason "capability_policy" (the operator's TOML is bad)
    ├── GateRejected                  station "gate", reason "unsafe_source"; carries the report
    ├── GenerationError               station "generate", reason "generation_failed"
    │   ├── GenerationAuthError       reason "auth" (401/403, missing permission or billing)
    │   │   └── GenerationNoKey       reason "no_key" (no API key configured; checked first)
    │   ├── GenerationRateLimited     reason "rate_limited" (429 after the client's retries)
    │   ├── GenerationServerError     reason "server_error" (5xx, overloaded)
    │   ├── GenerationTimeout         reason "timeout" (the model did not answer in time)
    │   ├── GenerationConnectionError reason "connection_error" (no route to the endpoint)
    │   ├── GenerationBadRequest      reason "bad_request" (unknown model, bad parameters)
    │   ├── GenerationRefused         reason "refusal" (the model declined)
    │   ├── GenerationTruncated       reason "truncated" (the answer hit max_tokens)
    │   ├── GenerationNoCode          reason "no_code" (the answer holds no Python code)
    │   ├── GenerationNoTemplate      reason "no_template" (offline: no built-in template)
    │   └── PromotionRefused          reason "promotion_refused" (a script run that cannot
    │                                 become a tool file: not ok, no object result, a def
    │                                 that reads the script's variables, global)
    ├── PersistError                  station "persist", reason "persist_failed"
    │   └── RunsFolderUnsafe          reason "runs_folder_unsafe" (<registry>/.runs is a
    │                                 symlink or not a folder: no run is kept or read there)
    ├── RegistryError                 station "registry"
    │   ├── UnknownTool               reason "unknown_tool"
    │   ├── UnknownVersion            reason "unknown_version"
    │   ├── VersionUnusable           reason "version_unusable" (quarantined, rejected, edited)
    │   ├── PendingApproval           reason "pending_approval" (verified, waits for a reviewer)
    │   │   └── RepairsPending        reason "repairs_pending" (an agent's repair refused: a
    │   │                             pending repair carries it, or too many wait)
    │   ├── ChainMismatch             reason "chain_mismatch" (with trusted keys: the pointer or
    │   │                             a status disagrees with a valid decision chain, the chain
    │   │                             does not verify, or is older than this consumer has seen)
    │   ├── NoChain                   reason "no_chain" (with trusted keys: a served tool has no
    │   │                             decision chain yet; dyntools sign-state writes its first)
    │   ├── TrustStateError           reason "trust_state" (the file of accepted chain heads
    │   │                             cannot be read, parsed or written: fail closed)
    │   ├── SigningKeyRequired        reason "signing_key_required" (with trusted keys: a
    │   │                             decision without a key, or with a key they do not list)
    │   └── RunTampered               reason "run_tampered" (a kept script run whose seal does
    │                                 not match: edited, copied, or its source swapped)
    ├── LoadError                     station "load", reason "compile_error"
    ├── VerificationFailed            station "verify", reason "verification_failed"
    └── SandboxError                  station "execute"
        ├── SandboxTimeout            reason "timeout"
        ├── SandboxMemoryLimit        reason "memory_limit"
        ├── ToolRuntimeError          reason "runtime_error" (the tool raised)
        │   └── ToolHttpError         reason "http_error" (a host request failed, and the tool
        │                             let its host.HttpError end the call)
        ├── BadResult                 reason "bad_result" (not a JSON object, too large, ...)
        ├── SandboxViolation          reason "sandbox_violation" (a guard or an OS layer refused)
        │   └── CapabilityViolation   the same reason: a host request the declaration or the
        │                             operator's policy does not grant (undeclared or refused
        │                             host, a private address, too many requests, no policy)
        ├── WorkerCrashed             reason "worker_crashed"
        ├── LayerUnavailable          reason "layer_unavailable" (--require-layers)
        ├── Overloaded                reason "overloaded" (every executor queue is full)
        ├── ExecutorUnavailable       reason "executor_unavailable" (no cluster, no live node)
        ├── SourceRefused             reason "source_refused" (a node's hash or gate check)
        ├── RunLimitExceeded          reason "run_limit" (a script passed --max-tool-calls, or
        │                             its record would pass the size cap of kept runs)
        └── ReplayDiverged            reason "replay_diverged" (a resumed script's k-th tool
                                      call is not the one its run recorded)
"""

from __future__ import annotations

from typing import Any, ClassVar

# Leaves nothing raises yet -> why they exist already. A test fails when a leaf is neither
# raised nor listed here, and when a listed one starts being raised (delete its line then).
RESERVED: dict[str, str] = {}

# What `DyntoolsError.as_dict()` holds, in this order: where it failed, the stable reason,
# the message a person reads, and the details a program reads.
ERROR_KEYS = ("station", "reason", "message", "details")


class DyntoolsError(Exception):
    station: ClassVar[str] = "dyntools"
    reason: ClassVar[str] = "error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def as_dict(self) -> dict[str, Any]:
        """The error as every boundary shows it (the CLI's JSON, an adapter's payload)."""
        return {key: getattr(self, key) for key in ERROR_KEYS}


class UsageError(DyntoolsError):
    station = "usage"
    reason = "usage_error"


class InvalidParams(UsageError):
    reason = "invalid_params"


class NothingToRepair(UsageError):
    """A repair whose counterexample the current version already passes."""

    reason = "nothing_to_repair"


class ContractContradiction(UsageError):
    """A counterexample that gives params the tool's contract promises a different result:
    that is a contract change (a new version with contract_change), not a repair."""

    reason = "contract_contradiction"


class UnknownRun(UsageError):
    """No script run with this id is kept in the registry's `.runs/` (never made, or
    removed by the retention limit)."""

    reason = "unknown_run"


class PolicyLoadError(DyntoolsError):
    station = "policy"
    reason = "policy_error"


class CapabilityPolicyError(PolicyLoadError):
    """The operator's capability policy (`--capabilities FILE`) cannot be read or is not
    well formed; the message names the file, the key and what is wrong."""

    reason = "capability_policy"


class GateRejected(DyntoolsError):
    station = "gate"
    reason = "unsafe_source"

    def __init__(self, report: Any, message: str | None = None) -> None:
        findings = getattr(report, "findings", ())
        super().__init__(
            message or f"the gate rejected {getattr(report, 'path', 'the source')} "
            f"with {len(findings)} finding(s)",
            findings=[f.as_dict() for f in findings],
        )
        self.report = report


class GenerationError(DyntoolsError):
    station = "generate"
    reason = "generation_failed"


class GenerationAuthError(GenerationError):
    reason = "auth"


class GenerationNoKey(GenerationAuthError):
    reason = "no_key"


class GenerationRateLimited(GenerationError):
    reason = "rate_limited"


class GenerationServerError(GenerationError):
    reason = "server_error"


class GenerationTimeout(GenerationError):
    reason = "timeout"


class GenerationConnectionError(GenerationError):
    reason = "connection_error"


class GenerationBadRequest(GenerationError):
    reason = "bad_request"


class GenerationRefused(GenerationError):
    reason = "refusal"


class GenerationTruncated(GenerationError):
    reason = "truncated"


class GenerationNoCode(GenerationError):
    reason = "no_code"


class GenerationNoTemplate(GenerationError):
    reason = "no_template"


class PromotionRefused(GenerationError):
    """A script run cannot become a tool file; the message says why (it did not end ok,
    its result is not a JSON object, a top-level def reads the script's variables, it uses
    `global`, ...). Nothing was written."""

    reason = "promotion_refused"


class PersistError(DyntoolsError):
    station = "persist"
    reason = "persist_failed"


class RunsFolderUnsafe(PersistError):
    """`<registry>/.runs` is a symlink (or not a folder): following it would write run
    records and a `.gitignore` of `*` into whatever folder it names."""

    reason = "runs_folder_unsafe"


class RegistryError(DyntoolsError):
    station = "registry"
    reason = "registry_error"


class UnknownTool(RegistryError):
    reason = "unknown_tool"


class UnknownVersion(RegistryError):
    reason = "unknown_version"


class VersionUnusable(RegistryError):
    reason = "version_unusable"


class PendingApproval(RegistryError):
    """The tool's only candidate version waits for a reviewer; the message names the tool,
    the version and the command that approves it."""

    reason = "pending_approval"


class RepairsPending(PendingApproval):
    """A repair refused before anything is generated because the tool's repairs already
    wait for a reviewer: this counterexample is on one of them, or MAX_PENDING_REPAIRS are
    (pipeline/repair.py): a flood of failure reports cannot fill the registry."""

    reason = "repairs_pending"


class ChainMismatch(RegistryError):
    """With trusted keys, what the manifest says is served is not what the head of the tool's
    decision chain says, or the chain does not verify, or it is older than (or forks from) a
    head this consumer accepted before. Nothing of the tool is served; `details` say what
    disagrees."""

    reason = "chain_mismatch"


class NoChain(RegistryError):
    """With trusted keys, the tool's manifest names a current version but no signed decision
    vouches for it yet: `dyntools sign-state NAME --sign-key FILE` writes the first one."""

    reason = "no_chain"


class TrustStateError(RegistryError):
    """The consumer's record of accepted chain heads (outside the registry) cannot be read,
    parsed or written. It is a security record: refused, never silently reset."""

    reason = "trust_state"


class SigningKeyRequired(RegistryError):
    """With trusted keys configured, a decision that changes what is served must be signed by
    one of them: no key was given, or the key given is not trusted. Nothing changed."""

    reason = "signing_key_required"


class RunTampered(RegistryError):
    """A kept script run that does not match its seal (dyntools/codemode/seal.py): its
    record was edited after it was kept (a recorded result, a limit, the source with its
    hash), copied from another registry, or has no seal. It is neither resumed nor
    promoted."""

    reason = "run_tampered"


class LoadError(DyntoolsError):
    station = "load"
    reason = "compile_error"


class VerificationFailed(DyntoolsError):
    station = "verify"
    reason = "verification_failed"


class SandboxError(DyntoolsError):
    station = "execute"
    reason = "sandbox_error"


class SandboxTimeout(SandboxError):
    reason = "timeout"


class SandboxMemoryLimit(SandboxError):
    reason = "memory_limit"


class ToolRuntimeError(SandboxError):
    reason = "runtime_error"


class ToolHttpError(ToolRuntimeError):
    """A host request of the tool failed (a 4xx or 5xx answer, a timeout, DNS, ...) and the
    tool did not catch the `host.HttpError`: the call failed, and says so, rather than
    answering with what a failed request left behind."""

    reason = "http_error"


class BadResult(SandboxError):
    reason = "bad_result"


class SandboxViolation(SandboxError):
    reason = "sandbox_violation"


class CapabilityViolation(SandboxViolation):
    """A tool asked the host for something its declaration or the operator's policy does not
    grant. The call ends (the worker is killed); `details` name the capability and target."""


class WorkerCrashed(SandboxError):
    reason = "worker_crashed"


class LayerUnavailable(SandboxError):
    reason = "layer_unavailable"


class Overloaded(SandboxError):
    """Every executor actor's bounded queue is full: retry later or add nodes."""

    reason = "overloaded"


class ExecutorUnavailable(SandboxError):
    """The executor cannot run calls: Ray missing, no cluster, or no live node."""

    reason = "executor_unavailable"


class SourceRefused(SandboxError):
    """A node refused the bytes it was sent: their sha256 differs from the registry's record,
    or its own gate rejects them. Nothing was compiled or run."""

    reason = "source_refused"


class RunLimitExceeded(SandboxError):
    """A script passed one of its run's limits that end it rather than fail one call: more
    tool calls than `max_tool_calls`, or a record too large to keep for a resume."""

    reason = "run_limit"


class ReplayDiverged(SandboxError):
    """A resumed script made a tool call other than the one its run recorded at that place
    (another tool, or other params): the recorded results no longer apply, so the run ends."""

    reason = "replay_diverged"
