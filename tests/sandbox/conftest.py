"""Shared helpers: tool files written to tmp_path, the default policy, fast limits."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dyntools.gate.policy import Policy, load_policy
from dyntools.sandbox import SandboxLimits

HEADER = '''"""A test tool."""
{imports}
NAME = "{name}"
DESCRIPTION = "A tool used by the sandbox tests."
PARAMS = {{"type": "object"}}


'''

# Every OS layer: skipping all of them leaves RestrictedPython (and the audit hook) alone.
OS_LAYERS = frozenset({
    "rlimits", "userns", "netns", "mountns", "landlock_fs", "landlock_net", "landlock_scope",
    "seccomp", "capabilities",
})


def only(*layers: str) -> frozenset[str]:
    """The skip set that leaves exactly `layers` on (plus no_new_privs, which is not
    skippable and restricts nothing on its own)."""
    return (OS_LAYERS | {"restricted", "audit_hook"}) - set(layers)


@pytest.fixture(scope="session")
def policy() -> Policy:
    return load_policy()


@pytest.fixture
def limits() -> SandboxLimits:
    return SandboxLimits(timeout_s=3.0, memory_mb=128)


@pytest.fixture
def tool(tmp_path: Path):
    """Write a tool file: `tool("def run(params): ...", imports="import re")`."""
    counter = {"n": 0}

    def write(body: str, *, imports: str = "", name: str = "test_tool") -> Path:
        counter["n"] += 1
        path = tmp_path / f"{name}_{counter['n']}.py"
        path.write_text(HEADER.format(imports=imports, name=name) + textwrap.dedent(body))
        return path

    return write
