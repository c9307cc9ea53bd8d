"""The registry: versioned, tamper-evident tool files (DESIGN.md section 5).

    from dyntools.registry import Registry
    registry = Registry.open("generated_tools", policy)
    record = registry.add_version("slugify_text", source, {"generator": "offline"})
    registry.current("slugify_text").path
"""

from __future__ import annotations

from dyntools.registry.core import Registry
from dyntools.registry.manifest import APPROVED, PENDING, QUARANTINED, REJECTED, RETIRED
from dyntools.registry.records import (
    DEFAULT_REGISTRY_DIR,
    MODULE_PREFIX,
    REGISTRY_ENV,
    ToolState,
    Unrecorded,
    VersionRecord,
    module_name_for,
    resolve_registry_path,
)

__all__ = [
    "APPROVED",
    "DEFAULT_REGISTRY_DIR",
    "MODULE_PREFIX",
    "PENDING",
    "QUARANTINED",
    "REGISTRY_ENV",
    "REJECTED",
    "RETIRED",
    "Registry",
    "ToolState",
    "Unrecorded",
    "VersionRecord",
    "module_name_for",
    "resolve_registry_path",
]
