"""The consumer's record of accepted chain heads (dyntools/registry/freshness.py): where it
lives, what names a registry, and that a record that cannot be read, parsed or written
refuses with a clear message and is never reset silently."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from dyntools.registry.freshness import TRUST_STATE_ENV, registry_id, state_folder

from .chain_scenes import Operator, copy_registry, refused


@pytest.fixture(scope="module")
def ensured(tmp_path_factory: pytest.TempPathFactory) -> Operator:
    """A registry with a chained slugify_text, ensured once for the module (an ensure is a
    generation, a gate run and a verification in the sandbox)."""
    op = Operator(tmp_path_factory.mktemp("trust-state"))
    op.ok("init", str(op.reg))
    op.ok("ensure", "slugify_text", key=True)
    return op


@pytest.fixture
def served(ensured: Operator, tmp_path: Path) -> Operator:
    """A copy of that registry at a new path, same keys, already called once by this
    consumer (its own, new state folder: the record names the registry by its path)."""
    op = Operator(tmp_path, keys=ensured)
    copy_registry(ensured.reg, op.reg)
    assert json.loads(op.call().stdout)["version"] == 1
    return op


def _record(op: Operator) -> Path:
    [path] = op.state.glob("*.json")
    return path


def test_the_record_names_the_registry_by_its_real_path_and_keeps_the_head(
        served: Operator, tmp_path: Path) -> None:
    path = _record(served)
    assert path.name == f"{registry_id(served.reg)}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(served.state.stat().st_mode) == 0o700
    data = json.loads(path.read_text())
    assert data["registry"] == os.path.realpath(served.reg)
    head = json.loads((served.reg / "slugify_text" / "manifest.json").read_text())["chain"][-1]
    from dyntools.registry.chain import digest_of

    assert data["tools"]["slugify_text"]["seq"] == 0
    assert data["tools"]["slugify_text"]["head"] == digest_of(head)
    assert not [p for p in served.state.iterdir() if p.name.startswith(".")]  # no temp left
    # a symlink to the registry is the same registry: whoever writes the registry cannot
    # choose the record a consumer reads
    link = tmp_path / "link"
    link.symlink_to(served.reg)
    assert registry_id(link) == registry_id(served.reg)
    assert registry_id(tmp_path / "elsewhere") != registry_id(served.reg)


def test_where_the_record_lives(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv(TRUST_STATE_ENV, raising=False)
    assert state_folder() == tmp_path / "xdg" / "dyntools" / "heads"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/path")  # invalid by the XDG spec: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert state_folder() == tmp_path / "home" / ".local" / "state" / "dyntools" / "heads"
    monkeypatch.setenv(TRUST_STATE_ENV, str(tmp_path / "explicit"))
    assert state_folder() == tmp_path / "explicit"


def _fails_closed(op: Operator, said: str) -> None:
    message = refused(op.call(), "trust_state")
    assert said in message, message
    assert "never reset silently" in message or TRUST_STATE_ENV in message, message
    code, review = op.review()
    assert code == 1
    chain = next(t["chain"] for t in review["tools"] if t["name"] == "slugify_text")
    assert chain["code"] == "trust_state"


@pytest.mark.parametrize("content", [b"{not json", b"[]", b'{"format": 2}',
                                     b'{"format": 1, "registry": "/elsewhere", "tools": {}}',
                                     b"\xff\xfe", b"[" * 100_000])
def test_a_record_that_cannot_be_parsed_fails_closed_and_is_kept(served: Operator,
                                                                 content: bytes) -> None:
    path = _record(served)
    path.write_bytes(content)
    _fails_closed(served, "cannot be read (not a record of accepted heads")
    assert path.read_bytes() == content  # never reset silently


def test_a_record_with_a_lower_head_entry_is_not_a_reset(served: Operator) -> None:
    # entries are checked, not trusted: a head that is not a digest is refused
    path = _record(served)
    data = json.loads(path.read_text())
    data["tools"]["slugify_text"]["head"] = "not a digest"
    path.write_text(json.dumps(data))
    os.chmod(path, 0o600)
    _fails_closed(served, "must be a SHA-256")


def test_a_record_others_can_write_is_refused(served: Operator) -> None:
    path = _record(served)
    os.chmod(path, 0o666)
    _fails_closed(served, "writable by others")


def test_a_fifo_or_a_symlink_in_place_of_the_record_is_refused(served: Operator,
                                                               tmp_path: Path) -> None:
    path = _record(served)
    real = tmp_path / "real.json"
    path.rename(real)
    path.symlink_to(real)
    _fails_closed(served, "cannot be read")
    path.unlink()
    os.mkfifo(path)  # never blocks: opened non-blocking, refused as not a regular file
    _fails_closed(served, "not a regular file")


def test_a_record_that_cannot_be_written_fails_closed(served: Operator, tmp_path: Path) -> None:
    # /proc takes no new folder, even from root: nothing accepted yet, and nowhere to say so
    message = refused(served.call(state=Path("/proc/dyntools-no-such/heads")), "trust_state")
    assert "cannot create" in message and TRUST_STATE_ENV in message
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    message = refused(served.call(state=blocker / "heads"), "trust_state")
    assert "cannot be read (Not a directory)" in message
