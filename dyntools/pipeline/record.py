"""`record`: run a capability tool once for real and keep what it did as an example.

    result = dt.record("page_title", {"url": "http://127.0.0.1:8765/"})
    result.example      # {"params": ..., "result": ..., "http": [recorded exchanges]}
    result.ensured      # the new version that carries it: verified, then as `ensure` leaves it

The current version runs once through the broker, under the operator's capability policy
(nothing is granted without one), and every exchange it makes is recorded as the broker
answered it (capabilities/recording.py): a secret a server echoed appears as
`[redacted:NAME]`, as the tool saw it. The call's params, its result and those exchanges
become one example; the version's source with that example in its EXAMPLES (an example with
the same params is replaced) goes through the stations of a new version like any other: the
gate, verification (which replays the recording, and the contract the current version
passed), and the approval policy and the decision chain (`require_approval`, the signer).
Nothing is written when the call fails, or when a request failed in a way replay cannot
reproduce.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from dyntools.base.hidden_text import hidden_character_class
from dyntools.errors import DyntoolsError, UnknownTool, UsageError
from dyntools.pipeline.core import PipelineCore, ToolSource
from dyntools.pipeline.events import StationListener

if TYPE_CHECKING:
    import ast

    from dyntools.pipeline.ensure import EnsureResult

WIDTH = 95  # a literal goes on one line when it fits in this many columns
RECORD = "record"


class RecordResult(NamedTuple):
    """What `record` did: the version it ran, the example it made, and the new version."""

    name: str
    recorded_from: int
    example: dict[str, Any]
    ensured: EnsureResult

    def as_dict(self) -> dict[str, Any]:
        return {"recorded_from": self.recorded_from, "example": self.example,
                **self.ensured.as_dict()}


class _RecordedSource:
    """The generator of the new version: the recorded source, and nothing else."""

    id = RECORD
    model = None
    accepts_feedback = False

    def __init__(self, source: str) -> None:
        self.source = source

    def generate(self, spec: Any) -> Any:
        from dyntools.generators.base import GeneratedSource

        return GeneratedSource(self.source, generator=self.id)


class Recording(PipelineCore):
    """`Dyntools.record`."""

    if TYPE_CHECKING:  # pipeline/ensure.py's: the new version takes ensure's stations
        def ensure(self, spec: Any, *, new_version: bool = False, generator: Any = None,
                   on_station: StationListener | None = None, require_approval: bool = False,
                   tools: ToolSource | None = None,
                   provenance: Mapping[str, Any] | None = None) -> EnsureResult: ...

    def record(self, name: str, params: dict[str, Any], *, timeout: float | None = None,
               on_station: StationListener | None = None, require_approval: bool = False,
               tools: ToolSource | None = None) -> RecordResult:
        """Run `name`'s current version once for real (its HTTP through the broker) and make
        a new version whose EXAMPLES hold this call as an example, its exchanges recorded.
        Raises UsageError when there is nothing to record or no policy grants anything, the
        call's own error when it fails (nothing is written then), and what `ensure` raises."""
        from dyntools.capabilities.recording import Recording as Exchanges

        name = self.registry.alias_of(name) or name
        current = self.registry.current(name)
        if current is None:
            raise self.registry.refusal(name) or UnknownTool(
                f"{name} has no current version to record", tool=name)
        declared = self._declared_by(current)
        if not declared.http:
            raise UsageError(f"{name} v{current.version} declares no http hosts in "
                             "CAPABILITIES: it makes no requests to record", tool=name)
        if not self.capabilities.policy.configured:
            from dyntools.capabilities.policy import NO_POLICY

            raise UsageError(f"recording runs {name} for real: {NO_POLICY}", tool=name)
        self._params_check(current)(params)
        recording = Exchanges()
        ran: list[tuple[Any, Any]] = []  # (the version the runtime ran, its host)

        def prepare(used: Any) -> Any:
            host = self.capabilities.live(tool=name, version=used.version,
                                          declared=self._declared_by(used),
                                          tools=self._composer(tools), record=recording)
            ran.append((used, host))
            return host

        try:
            result = self.runtime.call(name, params, timeout, prepare=prepare)
        except DyntoolsError as exc:
            for _, host in ran:  # no secret leaves in an error (as Dyntools.call)
                exc.message = host.redact(exc.message)
                exc.details = host.redact(exc.details)
            exc.message = f"{exc.message} (nothing was recorded)"
            exc.args = (exc.message,)
            raise
        used, host = ran[0]
        if recording.incomplete is not None:
            raise UsageError(f"the call of {name} cannot be replayed, so nothing was "
                             f"recorded: {recording.incomplete}", tool=name)
        example: dict[str, Any] = {"params": params, "result": host.redact(result)}
        exchanges = recording.exchanges()
        if exchanges:
            example["http"] = exchanges
        source = self.registry.verified_source(name, used.version,
                                               sha256=used.sha256).decode("utf-8")
        ensured = self.ensure(
            name, new_version=True, generator=_RecordedSource(with_example(source, example)),
            on_station=on_station, require_approval=require_approval, tools=tools,
            provenance={"recorded_from": used.version, "recorded_exchanges": len(exchanges)})
        return RecordResult(name, used.version, example, ensured)


def with_example(source: str, example: Mapping[str, Any]) -> str:
    """`source` with `example` in its EXAMPLES: replacing one with the same params, else
    appended; a file without EXAMPLES gets them after its last top-level constant. The rest
    of the file is kept byte for byte."""
    import ast  # a call never needs it: only recording does

    module = ast.parse(source)
    lines = source.splitlines(keepends=True)
    assigned = [(_assigned_name(node), node) for node in module.body
                if isinstance(node, ast.Assign) and _assigned_name(node)]
    found = next((node for name, node in assigned if name == "EXAMPLES"), None)
    examples: list[Any] = []
    if found is not None:
        examples = list(ast.literal_eval(found.value))
        examples = [e for e in examples
                    if not (isinstance(e, Mapping) and e.get("params") == example["params"])]
    examples.append(dict(example))
    text = "EXAMPLES = " + literal(examples) + "\n"
    if found is not None:
        start, end = found.lineno - 1, found.end_lineno or found.lineno
        return "".join([*lines[:start], text, *lines[end:]])
    constants = [node for name, node in assigned if name.isupper()]
    at = (constants[-1].end_lineno or constants[-1].lineno) if constants else 0
    return "".join([*lines[:at], text, *lines[at:]])


def _assigned_name(node: ast.Assign) -> str:
    """The one name a top-level `NAME = ...` binds, else ""."""
    import ast

    targets = node.targets
    return targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else ""


def literal(value: Any, indent: int = 0) -> str:
    """`value` (JSON data) as a Python literal: on one line when it fits in WIDTH, else one
    item a line. Strings are written with escapes for anything a reader would not see (the
    gate refuses invisible and bidirectional characters in a file, string literals included).
    UsageError for data nested too deeply to write."""
    try:
        return _literal(value, indent)
    except RecursionError:
        raise UsageError("the result is nested too deeply to be written as an example") \
            from None


def _literal(value: Any, indent: int) -> str:
    flat = _flat(value)
    if indent + len(flat) <= WIDTH or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 4)
    if isinstance(value, dict):
        items = [f"{pad}{_string(key)}: {_literal(item, indent + 4)}," for key, item in
                 value.items()]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{pad}{_literal(item, indent + 4)}," for item in value]
    return "[\n" + "\n".join(items) + "\n" + " " * indent + "]"


def _flat(value: Any) -> str:
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_string(k)}: {_flat(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_flat(item) for item in value) + "]"
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    raise UsageError(f"an example holds a {type(value).__name__}, which is not JSON data")


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _string(text: Any) -> str:
    """A double-quoted Python string: what a reader sees as itself, the rest as Python's
    escapes (JSON's \\uXXXX surrogate pairs would not read back as one character)."""
    if not isinstance(text, str):
        raise UsageError("an example's keys are strings")
    out = []
    for ch in text:
        escaped = _ESCAPES.get(ch)
        if escaped is None and (not ch.isprintable() or hidden_character_class(ch)):
            code = ord(ch)
            escaped = (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
                       if code < 0x10000 else f"\\U{code:08x}")
        out.append(escaped or ch)
    return '"' + "".join(out) + '"'
