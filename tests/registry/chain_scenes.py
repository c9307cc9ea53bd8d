"""The operator of a registry with trusted keys, through the real CLI: keys made by
`dyntools keygen`, every command a process, and the attacker's edits made to the files."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.cli import dyntools
from tests.support.environment import env_without_dyntools

SLUG = '{"text": "A b"}'


def keygen(path: Path) -> Path:
    made = dyntools("keygen", str(path), timeout=60)
    assert made.returncode == 0, made.stderr
    return path


class Operator:
    """One registry, one trusted key (alice), and this consumer's accepted heads (`state`)."""

    def __init__(self, tmp_path: Path, name: str = "reg", *,
                 keys: Operator | None = None) -> None:
        """A new registry folder; a new key pair, or `keys`'s (the same reviewer)."""
        self.tmp = tmp_path
        self.reg = tmp_path / name
        self.state = tmp_path / f"{name}-state"
        if keys is not None:
            self.key, self.trusted = keys.key, keys.trusted
            return
        self.key = keygen(tmp_path / f"{name}-alice.key")
        self.trusted = tmp_path / f"{name}-trusted_keys"
        self.trusted.write_text("# reviewers\n" + Path(f"{self.key}.pub").read_text())

    def dt(self, *args: str, key: Path | bool | None = False, trusted: bool = True,
           state: Path | None = None, registry: Path | None = None,
           timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """`dyntools ARGS` on the registry, with the trusted keys (unless `trusted` is
        False), the signing key when `key` is True (or another key file), and this
        consumer's state folder (or `state`)."""
        env = env_without_dyntools(DYNTOOLS_REGISTRY=str(registry or self.reg),
                                   DYNTOOLS_TRUST_STATE=str(state or self.state))
        if trusted:
            env["DYNTOOLS_TRUSTED_KEYS"] = str(self.trusted)
        signing = self.key if key is True else key or None
        if signing is not None:
            env["DYNTOOLS_SIGNING_KEY"] = str(signing)
        return dyntools(*args, env=env, timeout=timeout)

    def ok(self, *args: str, **options: Any) -> subprocess.CompletedProcess[str]:
        done = self.dt(*args, **options)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    def call(self, *, registry: Path | None = None, state: Path | None = None,
             trusted: bool = True) -> subprocess.CompletedProcess[str]:
        return self.dt("call", "slugify_text", "--params", SLUG, "--json", registry=registry,
                       state=state, trusted=trusted)

    def review(self, *, registry: Path | None = None,
               state: Path | None = None) -> tuple[int, dict[str, Any]]:
        done = self.dt("review", "--json", registry=registry, state=state)
        assert done.returncode in (0, 1), done.stderr
        return done.returncode, json.loads(done.stdout)


def chain_of(review: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t["chain"] for t in review["tools"] if t["name"] == name)


def manifest(reg: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((reg / name / "manifest.json").read_text())
    return data


def write_manifest(reg: Path, name: str, data: dict[str, Any]) -> None:
    """What an attacker who can write the registry folder does (no key needed)."""
    (reg / name / "manifest.json").write_text(json.dumps(data, indent=1))


def edit_manifest(reg: Path, name: str, change: Callable[[dict[str, Any]], None]) -> None:
    data = manifest(reg, name)
    change(data)
    write_manifest(reg, name, data)


def copy_registry(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, symlinks=True)
    return target


def refused(done: subprocess.CompletedProcess[str], reason: str) -> str:
    """The message of a `call --json` refused with `reason` and exit 16."""
    assert done.returncode == 16, (done.returncode, done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert (error["station"], error["reason"]) == ("registry", reason), error
    message: str = error["message"]
    return message
