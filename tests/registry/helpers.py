"""Helpers for registry tests: small valid tool sources, tampering, polling."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from dyntools.gate.policy import Policy, load_policy


def tool_source(name: str = "echo_tool", answer: str = "v1", *, extra_import: str = "") -> bytes:
    """A minimal valid tool whose run() returns {"answer": answer}."""
    lines = ['"""Answers with a fixed value."""']
    if extra_import:
        lines.append(f"import {extra_import}")
    lines += [
        "",
        f'NAME = "{name}"',
        'DESCRIPTION = "Answers with a fixed value."',
        'PARAMS = {"type": "object", "properties": {}}',
        "",
        "",
        "def run(params):",
    ]
    if extra_import == "json":
        lines.append(f'    return {{"answer": json.loads(json.dumps("{answer}"))}}')
    else:
        lines.append(f'    return {{"answer": "{answer}"}}')
    return ("\n".join(lines) + "\n").encode()


def tamper(path: Path, offset: int = 5) -> None:
    """Flip one byte of a (read-only) file in place, as an editor or an attacker would."""
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    with open(path, "r+b") as handle:
        handle.seek(offset)
        byte = handle.read(1)
        handle.seek(offset)
        handle.write(b"X" if byte != b"X" else b"Y")




def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() if p.is_file() else b"<dir>"
        for p in sorted(root.rglob("*"))
    }


def allowlist_without_module(default: Policy, module: str, path: Path) -> Policy:
    """The default allow-list minus one module's tables."""
    kept: list[str] = []
    skipping = False
    for line in default.text.splitlines():
        if line.startswith("["):
            header = line.strip("[] ")
            skipping = header == f"modules.{module}" or header.startswith(f"modules.{module}.")
        if not skipping:
            kept.append(line)
    path.write_text("\n".join(kept) + "\n")
    return load_policy(path)
