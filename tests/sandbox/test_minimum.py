"""The sandbox's default minimum (dyntools/sandbox/minimum.py): tool code runs only where
seccomp, and mountns with userns or landlock_fs, are active in the host's verified view,
unless the operator opts in; the check runs before the tool's module body."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from dyntools.errors import LayerUnavailable
from dyntools.sandbox import SandboxLimits, WorkerPool, run_once
from dyntools.sandbox.minimum import (
    ALLOW_WEAKER_ENV,
    MINIMUM_SANDBOX,
    allow_weaker_from_env,
    missing_for_minimum,
    resolve_allow_weaker,
)
from dyntools.sandbox.testing import run_unchecked
from tests.support.missing_layer import SIMULATED, no_seccomp

from .conftest import OS_LAYERS

EVERY = frozenset(OS_LAYERS)


def view(active: set[str] | frozenset[str]) -> dict[str, dict[str, object]]:
    return {name: {"active": name in active, "detail": "on" if name in active else "off"}
            for name in OS_LAYERS}


@pytest.mark.parametrize("active, missing", [
    (EVERY, ()),
    ({"seccomp", "mountns", "userns"}, ()),
    ({"seccomp", "landlock_fs"}, ()),
    (EVERY - {"landlock_fs"}, ()),
    (EVERY - {"mountns"}, ()),
    (EVERY - {"userns"}, ()),  # landlock_fs holds the files
    (EVERY - {"seccomp"}, ("seccomp",)),
    (EVERY - {"mountns", "landlock_fs"}, ("landlock_fs", "mountns")),
    (EVERY - {"userns", "landlock_fs"}, ("landlock_fs", "userns")),
    ({"seccomp", "mountns"}, ("landlock_fs", "userns")),  # a mount namespace without userns
    ({"mountns", "userns", "landlock_fs"}, ("seccomp",)),
    (frozenset(), ("landlock_fs", "mountns", "seccomp", "userns")),
], ids=lambda value: ",".join(sorted(value)) if isinstance(value, frozenset | set) else None)
def test_the_rule_is_an_or_over_sets_of_layers(active: frozenset[str],
                                               missing: tuple[str, ...]) -> None:
    assert missing_for_minimum(view(active)) == missing


@pytest.mark.parametrize("layers", [
    {},  # nothing reported
    {"seccomp": {"active": "yes"}, "landlock_fs": {"active": 1}},  # not plainly True
    {"seccomp": [True, "x"], "landlock_fs": None},  # not the host's shape
    {"seccomp": {"detail": "no active key"}, "landlock_fs": {"active": True}},
])
def test_anything_but_a_plain_true_counts_as_missing(layers: dict[str, object]) -> None:
    assert "seccomp" in missing_for_minimum(layers)


def test_only_exactly_1_in_the_environment_opts_in() -> None:
    assert allow_weaker_from_env({ALLOW_WEAKER_ENV: "1"}) is True
    for value in ("", "0", "true", "yes", " 1", "1 ", "01"):
        assert allow_weaker_from_env({ALLOW_WEAKER_ENV: value}) is False, value
    assert allow_weaker_from_env({}) is False
    assert resolve_allow_weaker(False) is False and resolve_allow_weaker(True) is True


def test_the_test_suite_never_opts_in_globally() -> None:
    assert ALLOW_WEAKER_ENV not in os.environ
    assert allow_weaker_from_env() is False
    root = Path(__file__).resolve().parents[1]
    for conftest in root.rglob("conftest.py"):
        assert ALLOW_WEAKER_ENV not in conftest.read_text("utf-8"), conftest


# A module body that never ends: if it ran before the check, the start would end in a
# timeout, not in layer_unavailable (run_once runs no gate).
ENDLESS_BODY = '''"""Spins in its module body."""
NAME = "spins_at_import"
DESCRIPTION = "Never finishes importing."
PARAMS = {"type": "object"}

while True:
    pass


def run(params):
    return {}
'''

PLAIN = '''"""Answers."""
NAME = "plain"
DESCRIPTION = "Answers."
PARAMS = {"type": "object"}


def run(params):
    return {"ran": True}
'''

STARTUP = SandboxLimits(timeout_s=3.0, startup_timeout_s=3.0)


def _write(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "tool.py"
    path.write_text(source, encoding="utf-8")
    return path


@pytest.mark.parametrize("skip", [{"seccomp"}, {"mountns", "landlock_fs"},
                                  {"userns", "landlock_fs"}])
def test_a_worker_below_the_minimum_stops_before_the_module_body(
        tmp_path: Path, policy, skip: set[str]) -> None:
    with pytest.raises(LayerUnavailable) as info:
        run_once(_write(tmp_path, ENDLESS_BODY), {}, policy=policy, limits=STARTUP,
                 _skip_layers=frozenset(skip))
    message = info.value.message
    assert info.value.reason == "layer_unavailable"
    assert set(skip) <= set(info.value.details["missing"])
    assert all(name in message for name in skip)
    assert "dyntools doctor" in message
    assert "--allow-weaker-sandbox" in message and f"{ALLOW_WEAKER_ENV}=1" in message
    assert "Dyntools(..., allow_weaker_sandbox=True)" in message


@pytest.mark.parametrize("skip", [{"landlock_fs"}, {"mountns"}, {"userns"}])
def test_either_pair_is_enough_without_an_opt_in(tmp_path: Path, policy,
                                                  skip: set[str]) -> None:
    assert run_once(_write(tmp_path, PLAIN), {}, policy=policy,
                    _skip_layers=frozenset(skip)) == {"ran": True}


def test_the_opt_in_runs_below_the_minimum_and_is_logged(tmp_path: Path, policy) -> None:
    with capture_logs() as events:
        result = run_once(_write(tmp_path, PLAIN), {}, policy=policy,
                          _skip_layers=frozenset({"seccomp"}), allow_weaker_sandbox=True)
    assert result == {"ran": True}
    below = [e for e in events if e["event"] == "sandbox.below_minimum"]
    assert len(below) == 1 and below[0]["missing"] == ["seccomp"]


def test_the_opt_in_lowers_only_the_minimum_not_the_required_layers(tmp_path: Path,
                                                                    policy) -> None:
    with pytest.raises(LayerUnavailable) as info:
        run_once(_write(tmp_path, PLAIN), {}, policy=policy, allow_weaker_sandbox=True,
                 require_layers=frozenset({"seccomp"}), _skip_layers=frozenset({"seccomp"}))
    assert info.value.details["missing"] == ["seccomp"]
    assert "required sandbox layer" in info.value.message


def test_a_host_without_libseccomp_refuses_a_pool(tmp_path: Path, policy,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    no_seccomp(monkeypatch)
    with WorkerPool(_write(tmp_path, PLAIN), module_name="plain_v1", policy=policy,
                    size=1) as pool, pytest.raises(LayerUnavailable) as info:
        pool.call({})
    assert info.value.details["missing"] == ["seccomp"]
    assert SIMULATED in info.value.message  # the layer's own reason, from the report
    with WorkerPool(_write(tmp_path, PLAIN), module_name="plain_v1", policy=policy, size=1,
                    allow_weaker_sandbox=True) as pool:
        assert pool.call({}) == {"ran": True}


def test_run_unchecked_with_layers_disabled_is_the_opt_in(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    path = _write(tmp_path, PLAIN)
    assert run_unchecked(path, {}, disable={"seccomp"})["ok"] is True
    no_seccomp(monkeypatch)
    refused = run_unchecked(path, {})  # nothing disabled: no opt-in
    assert (refused["ok"], refused["reason"]) == (False, "layer_unavailable")
    assert refused["layers"]["seccomp"]["active"] is False


def test_the_minimum_is_made_of_layers_the_sandbox_knows() -> None:
    from dyntools.sandbox import LAYERS

    assert all(needed <= set(LAYERS) for needed in MINIMUM_SANDBOX)
    assert all("seccomp" in needed for needed in MINIMUM_SANDBOX)
