"""The policy examples in docs/capabilities.md load as written: a reader who copies one gets a
policy, not a CapabilityPolicyError."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dyntools.capabilities.policy import load_capability_policy

DOC = Path(__file__).resolve().parents[2] / "docs" / "capabilities.md"
BLOCKS = re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_doc_has_policy_examples() -> None:
    assert BLOCKS


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_each_policy_example_loads(block: str, tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(block, encoding="utf-8")
    policy = load_capability_policy(path)
    described = policy.describe()
    assert described["configured"] is True
    assert described["http"]["allow"]
