"""A registry's own settings: `<root>/config.json`, written by `dyntools init`, read on open.

    {"format": 1, "approval": "capabilities"}

approval   which verified versions wait for a person before they are served:
           never         none (a version that passes gate and verification becomes current);
           capabilities  versions whose CAPABILITIES reach something the current version's
                         do not (a first version that declares any; `declared_capabilities`);
           always        every version.

A caller can make the policy stricter for one `ensure` (`--require-approval`), never looser.
A registry without a config file behaves as `never` (what registries did before the file
existed); a config file that cannot be read is an error, never a silent `never`.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import NamedTuple

from dyntools.errors import UsageError
from dyntools.gate.capabilities import NONE, Capabilities, DeclarationError, parse_capabilities
from dyntools.gate.literals import NotLiteral, literal_value

CONFIG_NAME = "config.json"
CONFIG_FORMAT = 1
NEVER, CAPABILITIES, ALWAYS = "never", "capabilities", "always"
APPROVAL_POLICIES = (NEVER, CAPABILITIES, ALWAYS)  # loosest first
MAX_CONFIG_BYTES = 64 * 1024


class RegistryConfig(NamedTuple):
    approval: str = NEVER

    def as_dict(self) -> dict[str, object]:
        return {"format": CONFIG_FORMAT, "approval": self.approval}


def check_policy(approval: str) -> str:
    if approval not in APPROVAL_POLICIES:
        raise UsageError(f"approval policy must be one of {', '.join(APPROVAL_POLICIES)}, "
                         f"got {approval!r}")
    return approval


def stricter(a: str, b: str | None) -> str:
    """The stricter of two approval policies (`b` may be None: no opinion)."""
    if b is None:
        return a
    return max(check_policy(a), check_policy(b), key=APPROVAL_POLICIES.index)


def read_config(root: Path) -> RegistryConfig:
    path = root / CONFIG_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return RegistryConfig()
    except OSError as exc:
        raise UsageError(f"registry config {path} cannot be read: {exc.strerror or exc}",
                         path=str(path)) from None
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"registry config {path} cannot be read: {exc.strerror or exc}",
                         path=str(path)) from None
    try:
        raw = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        raw = None
    if (
        len(data) > MAX_CONFIG_BYTES
        or not isinstance(raw, dict)
        or raw.get("format") != CONFIG_FORMAT
        or raw.get("approval") not in APPROVAL_POLICIES
    ):
        raise UsageError(
            f"registry config {path} is not valid: expected "
            f'{{"format": {CONFIG_FORMAT}, "approval": "never|capabilities|always"}}',
            path=str(path),
        )
    return RegistryConfig(approval=raw["approval"])


def write_config(root: Path, config: RegistryConfig) -> Path:
    from dyntools.registry.store import write_replace

    path = root / CONFIG_NAME
    write_replace(path, (json.dumps(config.as_dict(), indent=2) + "\n").encode("utf-8"))
    return path


def declared_capabilities(source: bytes | str) -> Capabilities:
    """The capabilities a gated version declares (its top-level CAPABILITIES literal; empty
    when it has none). It is the one place the approval policy reads capabilities from.
    Raises DeclarationError for a malformed declaration, which the gate never accepts."""
    text = source.decode("utf-8") if isinstance(source, bytes) else source
    for node in ast.parse(text).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "CAPABILITIES"):
            try:
                return parse_capabilities(literal_value(node.value))
            except NotLiteral:
                raise DeclarationError((), "CAPABILITIES is not a literal") from None
    return NONE


def needs_approval(approval: str, declared: Capabilities | None = None,
                   previous: Capabilities | None = None) -> bool:
    """Must this verified version wait for a person? `always`: yes; `capabilities`: when what
    it `declared` reaches something that `previous`, the current version's declaration, does
    not (a first version that declares any); `never`: no."""
    if approval == ALWAYS:
        return True
    if approval == CAPABILITIES:
        return declared is not None and bool(declared.widens(previous))
    return False
