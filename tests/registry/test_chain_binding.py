"""A chain record vouches for content and for its registry (red team F6): one reviewer key
signs decisions in staging and in prod; a prod writer with no key copied staging's v1.py and
its manifest entry (or the whole tool folder, chain included) into prod, and `call
--trusted-keys` served it and `review --trusted-keys` exited 0. Real processes, real folders,
the same consumer state that accepted prod's head before the copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from .chain_scenes import Operator, copy_registry, edit_manifest, manifest

SOURCE = '''"""Greets."""
NAME = "greet"
DESCRIPTION = "Greets someone."
PARAMS = {"type": "object", "properties": {"who": {"type": "string"}}}


def run(params):
    return {"text": "TEXT" + params.get("who", "")}
'''
WHO = '{"who": "bob"}'


def _ensure(op: Operator, registry: Path, name: str, text: str) -> None:
    source = op.tmp / f"{registry.name}-{name}.py"
    source.write_text(SOURCE.replace("greet", name).replace("TEXT", text))
    op.ok("init", str(registry))
    op.ok("ensure", name, "--generator", "file", "--from", str(source), key=True,
          registry=registry)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Operator, Path]:
    """prod and staging, one reviewer key; greet in both (other content), debug_echo in
    staging only."""
    prod = Operator(tmp_path_factory.mktemp("binding"), "prod")
    staging = prod.tmp / "staging"
    _ensure(prod, prod.reg, "greet", "hello ")
    _ensure(prod, staging, "greet", "STAGING ")
    _ensure(prod, staging, "debug_echo", "DEBUG ")
    return prod, staging


@pytest.fixture
def prod(pair: tuple[Operator, Path], tmp_path: Path) -> Operator:
    """A copy of prod, whose consumer has accepted greet's head."""
    op = Operator(tmp_path, "prod", keys=pair[0])
    copy_registry(pair[0].reg, op.reg)
    done = op.ok("call", "greet", "--params", WHO, "--json")
    assert json.loads(done.stdout)["result"] == {"text": "hello bob"}
    return op


def _refused(done: Any) -> str:
    assert done.returncode == 16, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["reason"] == "chain_mismatch", error
    return str(error["message"])


def test_a_version_file_and_entry_copied_from_another_registry_is_not_served(
        prod: Operator, pair: tuple[Operator, Path]) -> None:
    staging = pair[1]
    shutil.copyfile(staging / "greet" / "v1.py", prod.reg / "greet" / "v1.py")
    theirs = manifest(staging, "greet")["versions"][0]
    edit_manifest(prod.reg, "greet", lambda m: m["versions"].__setitem__(0, theirs))
    message = _refused(prod.dt("call", "greet", "--params", WHO, "--json"))
    assert "v1's content" in message and "not what the chain approved" in message
    code, review = prod.review()
    assert code == 1 and review["summary"]["chain_problems"] == 1
    # a consumer that never saw prod is not fooled either
    _refused(prod.dt("call", "greet", "--params", WHO, "--json", state=prod.tmp / "fresh"))


def test_a_tool_folder_copied_from_another_registry_is_not_served(
        prod: Operator, pair: tuple[Operator, Path]) -> None:
    shutil.copytree(pair[1] / "debug_echo", prod.reg / "debug_echo")
    message = _refused(prod.dt("call", "debug_echo", "--params", WHO, "--json"))
    assert "signed in another registry" in message
    code, _ = prod.review()
    assert code == 1


def test_a_registry_moved_whole_keeps_serving(prod: Operator, tmp_path: Path) -> None:
    """The identity travels with the registry: a backup restored elsewhere is no copy."""
    moved = copy_registry(prod.reg, tmp_path / "moved")
    done = prod.ok("call", "greet", "--params", WHO, "--json", registry=moved)
    assert json.loads(done.stdout)["result"] == {"text": "hello bob"}
    assert prod.review(registry=moved)[0] == 0


@pytest.mark.parametrize("identity", [None, "not an identity\n", "f" * 32 + "\n"])
def test_a_missing_or_replaced_identity_serves_no_chained_tool(prod: Operator,
                                                               identity: str | None) -> None:
    path = prod.reg / "identity"
    if identity is None:
        path.unlink()
    else:
        path.write_text(identity)
    message = _refused(prod.dt("call", "greet", "--params", WHO, "--json"))
    assert {None: "no identity file", "n": "does not hold a registry identity",
            "f": "another registry"}[identity and identity[0]] in message
