"""A tool's declared metadata as plain data: what the gate read from the file.

The gate evaluates NAME, DESCRIPTION, PARAMS, EXAMPLES and CAPABILITIES while it checks
them, and an accepted report carries them (`GateReport.metadata`), so nothing downstream
parses the file again to learn them. `dyntools.pipeline.toolmeta.read_metadata` builds the same
value
from a file's source for callers that hold only the bytes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NamedTuple

from dyntools.gate.capabilities import NONE, Capabilities

if TYPE_CHECKING:
    from typing import Any


class ToolMetadata(NamedTuple):
    name: str | None
    description: str
    params: dict[str, Any]
    examples: tuple[dict[str, Any], ...] = ()
    # What the tool may reach through the host (empty for a tool that declares nothing).
    capabilities: Capabilities = NONE


def metadata_from_json(text: str, capabilities: Capabilities | None) -> ToolMetadata:
    """The metadata from the gate's JSON text of `[NAME, DESCRIPTION, PARAMS]` or `[NAME,
    DESCRIPTION, PARAMS, EXAMPLES]` (the values as JSON data: what models and clients see)."""
    values = json.loads(text)
    name, description, params = values[:3]
    examples = values[3] if len(values) > 3 else []
    return ToolMetadata(name=name, description=description, params=params,
                        examples=tuple(examples), capabilities=capabilities or NONE)
