"""`run_code` and `resume_run` as tools an agent calls: code mode for the MCP server and the
Anthropic and OpenAI adapters, each only when the caller turns it on.

    value, is_error = run_code_call(catalog, {"code": "...", "inputs": {...}})
    value           # {"status", "run_id", "result", "output", "trace", ...}: RunOutcome.as_dict()

A model sends a script as a string; it is gated as a script, run in a sandboxed worker, and
its `tools.NAME(...)` calls reach exactly the tools the surface serves: `catalog` is what the
MCP server serves or the adapter was given, and a script reaches nothing a direct call of
that catalog would not (the same gate, the same layers, the same broker). A run that waits
for a reviewer comes back with status "waiting" and its run id; `resume_run` continues it
after the decision. A refused script's findings and a failed run's error are results the
model reads (`is_error`), never exceptions through the agent loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dyntools.adapters.core import Outcome
from dyntools.adapters.results import error_payload
from dyntools.base.log import get_logger
from dyntools.catalog.core import Catalog
from dyntools.errors import DyntoolsError, UsageError
from dyntools.pipeline.toolmeta import check_params

RUN_CODE, RESUME_RUN = "run_code", "resume_run"
CODE_TOOLS = (RUN_CODE, RESUME_RUN)
MAX_CODE_CHARS = 256 * 1024  # the gate's own size limit is smaller; this bounds the request

RUN_CODE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "maxLength": MAX_CODE_CHARS,
                 "description": "The script: Python with top-level statements."},
        "inputs": {"type": "object",
                   "description": "The script's input, read in the script as `inputs`."},
    },
    "required": ["code"],
    "additionalProperties": False,
}
RESUME_RUN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "run_id": {"type": "string", "maxLength": 64,
                   "description": "The run_id of a run whose status was \"waiting\"."},
    },
    "required": ["run_id"],
    "additionalProperties": False,
}
RUN_CODE_DESCRIPTION = (
    "Run a short Python script that calls several tools in one step, instead of calling "
    "them one by one. The script has top-level statements; it reads its input as `inputs` "
    "(a dict), calls any tool you can call as `tools.NAME(key=value, ...)` (keyword "
    "arguments only; each returns the tool's result object, or raises host.ToolError, which "
    "`from host import ToolError` lets you catch), may print, and must bind its answer to "
    "`result`. It is checked by the same gate as tool files (the same allowed modules and "
    "builtins; no classes, no underscore names, no global) and runs in a sandbox. Returns "
    "{status, run_id, result, output, trace}; status is ok, refused (with line-numbered "
    "findings to fix), error, or waiting (a tool it called waits for a reviewer: call "
    "resume_run with the run_id once it is approved or rejected).")
RESUME_RUN_DESCRIPTION = (
    "Continue a script run whose status was \"waiting\", after a reviewer decided on the tool "
    "it waited for. Calls it already made are not made again. Returns what run_code returns "
    "(still \"waiting\" while nothing is decided).")


def code_tool_definitions() -> list[tuple[str, str, dict[str, Any]]]:
    """(name, description, input schema) of the two tools, in listing order."""
    return [(RUN_CODE, RUN_CODE_DESCRIPTION, dict(RUN_CODE_SCHEMA)),
            (RESUME_RUN, RESUME_RUN_DESCRIPTION, dict(RESUME_RUN_SCHEMA))]


def run_code_call(catalog: Catalog, arguments: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """`run_code` with `arguments` over `catalog`: (the outcome's JSON, whether it is an
    error). Raises UsageError for arguments that do not match the schema."""
    check_params(RUN_CODE_SCHEMA, dict(arguments), tool=RUN_CODE)
    inputs = arguments.get("inputs")
    outcome = catalog.dyntools.run_code(str(arguments["code"]),
                                        dict(inputs) if inputs is not None else None,
                                        tools=catalog)
    get_logger("adapter.code").info("code.run", run_id=outcome.run_id, status=outcome.status)
    return outcome.as_dict(), outcome.status in ("refused", "error")


def resume_run_call(catalog: Catalog,
                    arguments: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """`resume_run` with `arguments` over `catalog` (as run_code_call)."""
    check_params(RESUME_RUN_SCHEMA, dict(arguments), tool=RESUME_RUN)
    outcome = catalog.dyntools.resume_run(str(arguments["run_id"]), tools=catalog)
    get_logger("adapter.code").info("code.resume", run_id=outcome.run_id, status=outcome.status)
    return outcome.as_dict(), outcome.status in ("refused", "error")


def code_tool_call(catalog: Catalog, name: str,
                   arguments: Any) -> tuple[dict[str, Any], bool]:
    """Either tool by name (the adapters' dispatch)."""
    if not isinstance(arguments, Mapping):
        raise UsageError(f"the input for {name!r} must be a JSON object, got "
                         f"{type(arguments).__name__}", tool=name)
    if name == RUN_CODE:
        return run_code_call(catalog, arguments)
    return resume_run_call(catalog, arguments)


def run_code_outcome(catalog: Catalog, name: str, arguments: Any, adapter: str) -> Outcome:
    """A `run_code` or `resume_run` call as an adapter's outcome: never raises (bad
    arguments, an unknown run id or a bug are an error payload the model reads)."""
    try:
        value, is_error = code_tool_call(catalog, name, arguments)
    except Exception as exc:
        if not isinstance(exc, DyntoolsError):
            get_logger(f"adapter.{adapter}").error("adapter.internal_error", error=repr(exc),
                                                   exc_info=True)
        return Outcome(error_payload(exc), True)
    return Outcome(value, is_error)
