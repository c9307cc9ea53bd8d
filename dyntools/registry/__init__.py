"""The registry: versioned, tamper-evident tool files (DESIGN.md section 5).

    from dyntools.registry import Registry
    registry = Registry.open("generated_tools", policy)
    record = registry.add_version("slugify_text", source, {"generator": "offline"})
    registry.current("slugify_text").path
"""

from __future__ import annotations

from dyntools import lazy_exports

TYPE_CHECKING = False  # names resolve on first use: importing a submodule (policyload,
if TYPE_CHECKING:      # records) costs nothing of the rest
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

_HOMES = {
    "APPROVED": "dyntools.registry.manifest",
    "DEFAULT_REGISTRY_DIR": "dyntools.registry.records",
    "MODULE_PREFIX": "dyntools.registry.records",
    "PENDING": "dyntools.registry.manifest",
    "QUARANTINED": "dyntools.registry.manifest",
    "REGISTRY_ENV": "dyntools.registry.records",
    "REJECTED": "dyntools.registry.manifest",
    "RETIRED": "dyntools.registry.manifest",
    "Registry": "dyntools.registry.core",
    "ToolState": "dyntools.registry.records",
    "Unrecorded": "dyntools.registry.records",
    "VersionRecord": "dyntools.registry.records",
    "module_name_for": "dyntools.registry.records",
    "resolve_registry_path": "dyntools.registry.records",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
