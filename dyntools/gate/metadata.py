"""A tool's declared metadata as plain data: what the gate read from the file.

The gate evaluates NAME, DESCRIPTION, PARAMS, EXAMPLES and CAPABILITIES while it checks
them, and an accepted report carries them (`GateReport.metadata`), so nothing downstream
parses the file again to learn them. `dyntools.toolmeta.read_metadata` builds the same value
from a file's source for callers that hold only the bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dyntools.gate.capabilities import NONE, Capabilities


@dataclass(frozen=True, slots=True)
class ToolMetadata:
    name: str | None
    description: str
    params: dict[str, Any]
    examples: tuple[dict[str, Any], ...] = field(default=())
    # What the tool may reach through the host (empty for a tool that declares nothing).
    capabilities: Capabilities = NONE
