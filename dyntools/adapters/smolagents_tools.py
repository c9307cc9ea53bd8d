"""smolagents: a catalog as `Tool`s (optional extra `smolagents`).

    tools = tools_for_smolagents(catalog, wanted=wanted, allow_generation=True)
    agent = ToolCallingAgent(tools=tools, model=model)     # or CodeAgent
    agent.run("What is 1994 in Roman numerals?")

Each tool is a `smolagents.Tool` whose `inputs` come from the tool's PARAMS (property types
mapped to smolagents' types, properties that are not required marked `nullable`) and whose
`forward(**params)` calls `dispatch_smolagents_call`: resolved through the catalog (a `wanted`
tool generated on demand only with `allow_generation`), run (generated tools in the sandbox,
never in smolagents' own executor), and returned as the tool's JSON object (`output_type`
"object"). A failure is smolagents' tool-error shape: `forward` raises (`ToolCallFailed`,
whose message is the `{"error": {"station", "reason", "message", "details"}}` JSON), the
agent records an `AgentToolExecutionError` and shows it to the model at the next step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Unpack

from dyntools.adapters.core import Dispatch, DispatchOptions, ToolEntry
from dyntools.catalog.core import Catalog

__all__ = ["ToolCallFailed", "dispatch_smolagents_call", "tools_for_smolagents"]

# smolagents' AUTHORIZED_TYPES that a JSON Schema "type" can name.
_JSON_TYPES = ("string", "boolean", "integer", "number", "array", "object", "null")


class ToolCallFailed(Exception):
    """A dyntools tool failed; the message is the JSON error payload."""


def tools_for_smolagents(catalog: Catalog, **options: Unpack[DispatchOptions]) -> list[Any]:
    """One `smolagents.Tool` per catalog and registry tool, then per `wanted` spec
    (`options`: `DispatchOptions`)."""
    from smolagents import Tool

    dispatch = Dispatch.of(catalog, "smolagents", options)

    class CatalogTool(Tool):  # type: ignore[misc]
        skip_forward_signature_validation = True
        output_type = "object"

        def __init__(self, entry: ToolEntry) -> None:
            self.name = entry.name
            self.description = entry.description or entry.name
            self.inputs = smolagents_inputs(entry.params)
            super().__init__()

        def forward(self, **params: Any) -> dict[str, Any]:
            return _call(dispatch, self.name, params)

    return [CatalogTool(entry) for entry in dispatch.entries()]


def smolagents_inputs(params: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """PARAMS properties as smolagents `inputs`: {name: {"type", "description", "nullable"}}."""
    properties = params.get("properties")
    required = params.get("required")
    required = set(required) if isinstance(required, list) else set()
    inputs: dict[str, dict[str, Any]] = {}
    for key, value in (properties.items() if isinstance(properties, Mapping) else ()):
        schema = value if isinstance(value, Mapping) else {}
        declared = schema.get("type")
        types = [declared] if isinstance(declared, str) else (
            declared if isinstance(declared, list) else [])
        known = [t for t in types if t in _JSON_TYPES]
        kind: Any = known[0] if len(known) == 1 else (known if known else "any")
        text = schema.get("description") or schema.get("title") or str(key)
        spec: dict[str, Any] = {"type": kind, "description": str(text)}
        if key not in required:
            spec["nullable"] = True
        inputs[str(key)] = spec
    return inputs


def dispatch_smolagents_call(catalog: Catalog, name: str, params: Mapping[str, Any],
                             **options: Unpack[DispatchOptions]) -> dict[str, Any]:
    """Run one call; the result object, or `ToolCallFailed` carrying the error JSON
    (`options`: `DispatchOptions`)."""
    return _call(Dispatch.of(catalog, "smolagents", options), name, params)


def _call(dispatch: Dispatch, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    # smolagents passes optional (nullable) inputs the model left out as None: drop those,
    # so the tool's own defaults apply; a required input keeps its None.
    tool = dispatch.catalog.get(name) if isinstance(name, str) else None
    required = tool.params.get("required") if tool is not None else None
    keep = set(required) if isinstance(required, list) else set()
    sent = {key: value for key, value in dict(params).items()
            if value is not None or key in keep}
    outcome = dispatch.run(name, sent)
    if outcome.is_error:
        raise ToolCallFailed(outcome.text)
    return outcome.value
