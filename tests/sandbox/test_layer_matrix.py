"""Every OS layer on its own against runtime attacks, the gate bypassed (issue 9, "layers
tested alone"): `run_unchecked` with the Python layer off, then also seccomp off, then each OS
layer alone. Success is judged on the host side (a listener that accepted, a file that
appeared, a marker that came back, an exec'd program's exit status), never by the tool's
word. The expected table is docs/sandbox.md's; a layer that stops more or less than it did
fails here, so the table cannot drift from the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from dyntools.sandbox.minimum import MINIMUM_SANDBOX, missing_for_minimum
from dyntools.sandbox.testing import run_unchecked
from tests.support.budget import sample

from .attack_matrix import ATTACKS, COMBINATIONS, OS_LAYERS, minimum_row, run_matrix, write_attack

S = "stopped"
P = "passed"
# attack order: read_planted_file, read_host_env, tcp_connect, abstract_unix_connect,
# pathname_unix_connect, write_outside_workdir, fork, exec
EXPECTED: dict[str, tuple[str, ...]] = {
    "every OS layer (Python layer off)": (S, S, S, S, S, S, S, S),
    "every OS layer but seccomp (Python and seccomp off)": (S, S, S, S, S, S, S, S),
    "capabilities alone": (P, S, P, P, P, P, P, P),
    "landlock_fs alone": (S, S, P, P, P, S, P, S),
    "landlock_net alone": (P, P, S, P, P, P, P, P),
    "landlock_scope alone": (P, P, P, S, P, P, P, P),
    "mountns alone": (S, S, P, P, S, S, P, S),
    "netns alone": (P, P, S, S, P, P, P, P),
    "rlimits alone": (P, P, P, P, P, P, P, P),
    "seccomp alone": (P, P, S, S, S, P, S, S),
    "userns alone": (P, S, P, P, P, P, P, P),
    "default minimum: `landlock_fs` + `seccomp` alone": (S, S, S, S, S, S, S, S),
    "default minimum: `mountns` + `seccomp` + `userns` alone": (S, S, S, S, S, S, S, S),
    "Python layer alone (restricted + audit_hook)": (S, S, S, S, S, S, S, S),
    "nothing (control)": (P, P, P, P, P, P, P, P),
}


def test_the_table_covers_every_combination_and_attack():
    assert set(EXPECTED) == set(COMBINATIONS)
    assert all(len(row) == len(ATTACKS) for row in EXPECTED.values())


def test_the_default_minimum_is_the_smallest_sets_that_stop_every_attack():
    """Why the default refuses below `seccomp` and (`mountns` with `userns`, or
    `landlock_fs`): no OS layer stops every attack alone, each set of the minimum does (its
    own row above, run for real), and dropping any layer of a set leaves an attack that the
    rows of the layers left do not stop."""
    rows = {name: EXPECTED[f"{name} alone"] for name in OS_LAYERS}
    assert not [name for name, row in rows.items() if P not in row]
    for needed in MINIMUM_SANDBOX:
        assert EXPECTED[minimum_row(needed)] == (S,) * len(ATTACKS)
        assert missing_for_minimum({n: {"active": True} for n in needed}) == ()
        for dropped in needed - {"userns"}:  # userns is what lets mountns exist unprivileged
            left = needed - {dropped}
            assert any(all(rows[name][i] == P for name in left) for i in range(len(ATTACKS)))
            assert missing_for_minimum({n: {"active": True} for n in left}) != ()


def _row(combination: str) -> object:
    """A row named for one layer that stops something carries `layer`: its mutant without
    that layer is the control row, where every attack passes (rlimits alone stops none of
    these; its own tests are in test_layers.py). Both sets of the minimum hold seccomp."""
    layer = combination.removesuffix(" alone")
    if layer in OS_LAYERS and S in EXPECTED[combination]:
        return pytest.param(combination, marks=pytest.mark.layer(layer))
    if combination.startswith("default minimum:"):
        return pytest.param(combination, marks=pytest.mark.layer("seccomp"))
    return combination


@pytest.mark.parametrize("combination", [_row(name) for name in COMBINATIONS])
def test_layer_combination_against_the_runtime_attacks(tmp_path: Path, combination: str):
    matrix = run_matrix(tmp_path, COMBINATIONS[combination])
    seen = tuple(P if matrix[name][0] else S for name in ATTACKS)
    details = {name: (P if ok else S, outcome.get("reason"), str(outcome.get("error"))[:120])
               for name, (ok, outcome) in matrix.items()}
    assert seen == EXPECTED[combination], details


REJECT_CORPUS = sorted((Path(__file__).parent.parent / "gate" / "cases" / "reject").glob("*.py"))
# A cold worker per file: the whole corpus with the Python layer off in the suite, and with
# seccomp off too on every third file (the same ones each run); `make fuzz` runs all twice.
CORPUS_EVERY = {"python-off": 1, "python-and-seccomp-off": 3}
HOST_SECRETS = ("root:x:0:0", "PATH=")


@pytest.mark.parametrize("disabled", [frozenset({"restricted", "audit_hook"}),
                                      frozenset({"restricted", "audit_hook", "seccomp"})],
                         ids=list(CORPUS_EVERY))
def test_the_gate_reject_corpus_reaches_nothing_on_the_host(tmp_path: Path, disabled,
                                                            request: pytest.FixtureRequest):
    """Every escape technique the gate refuses, run anyway with the Python layer off: none of
    them leaks a host file or environment, or leaves a file in /tmp (the corpus names no other
path to write)."""
    assert len(REJECT_CORPUS) > 200
    leaks = {}
    every = CORPUS_EVERY[request.node.callspec.id]
    for path in sample(REJECT_CORPUS, every):
        outcome = run_unchecked(path, {"text": "x"}, disable=disabled)
        text = str(outcome.get("result")) + str(outcome.get("error"))
        if any(secret in text for secret in HOST_SECRETS):
            leaks[path.name] = text[:200]
    assert not leaks
    # A worker started by root runs as uid 65534: nothing it could write may exist.
    assert not [p for p in Path("/tmp").iterdir() if _owner(p) == 65534]


def _owner(path: Path) -> int | None:
    """The uid that owns `path`, or None when it is gone: other processes (other test runs
    on the machine) create and remove entries of /tmp while it is listed."""
    try:
        return path.lstat().st_uid
    except FileNotFoundError:
        return None


def test_run_unchecked_returns_exactly_the_documented_keys(tmp_path: Path):
    outcome = run_unchecked(write_attack(tmp_path, "fork"), {}, disable={"restricted"})
    assert set(outcome) == {"ok", "result", "error", "reason", "layers"}
    assert outcome["ok"] is False and outcome["reason"] == "sandbox_violation"
    assert outcome["layers"]["seccomp"]["active"]
    with pytest.raises(ValueError, match="unknown layer"):
        run_unchecked(write_attack(tmp_path, "fork"), {}, disable={"seccompp"})
