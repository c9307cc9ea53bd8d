"""Issue 28: a reviewer's decision cannot trap them. Through the real CLI (subprocesses).

A version made with `--contract-change` is approved only with the flag (exit 2, it stays
pending), and the approve command dyntools suggests carries it; a verification failure caused
by the reviewer's own flags (an `--example`, the current version's contract) leaves the
version pending; a failure of the version's own EXAMPLES still rejects it (exit 12)."""

from __future__ import annotations

from pathlib import Path

from tests.registry.test_review_workflow import adder, dt, manifest

EXAMPLE_4 = '[{"params": {"a": 2, "b": 2}, "result": {"sum": 4}}]'


def _registry_with_v1(tmp_path: Path) -> Path:
    reg = tmp_path / "reg"
    assert dt("init", str(reg), "--approval", "always").returncode == 0
    first = tmp_path / "v1.py"
    first.write_text(adder())
    done = dt("approve", "add_numbers", "--file", str(first), "--registry", str(reg))
    assert done.returncode == 0, done.stderr
    return reg


def _pending_v2(reg: Path, tmp_path: Path, source: str, *flags: str) -> str:
    path = tmp_path / "v2.py"
    path.write_text(source)
    made = dt("ensure", "add_numbers", "--new-version", *flags, "--generator", "file",
              "--from", str(path), "--registry", str(reg))
    assert made.returncode == 17, made.stderr
    return made.stdout


def test_a_contract_change_is_approved_only_with_the_flag(tmp_path: Path) -> None:
    reg = _registry_with_v1(tmp_path)
    # v2 multiplies: its own example (2, 2) -> 4 holds, v1's (1, 2) -> 3 does not
    shown = _pending_v2(reg, tmp_path, adder("a * b", EXAMPLE_4), "--contract-change")
    assert "dyntools approve add_numbers 2 --contract-change" in shown
    listed = dt("pending", "--registry", str(reg))
    assert "dyntools approve add_numbers 2 --contract-change" in listed.stdout

    forgot = dt("approve", "add_numbers", "2", "--registry", str(reg))
    assert forgot.returncode == 2, forgot.stderr
    assert "--contract-change" in forgot.stderr and "stays pending" in forgot.stderr
    assert "Traceback" not in forgot.stderr
    entry = manifest(reg, "add_numbers")
    assert entry["current"] == 1 and entry["versions"][1]["status"] == "pending"

    done = dt("approve", "add_numbers", "2", "--contract-change", "--registry", str(reg))
    assert done.returncode == 0, done.stderr
    assert manifest(reg, "add_numbers")["current"] == 2


def test_a_failing_reviewer_example_leaves_the_version_pending(tmp_path: Path) -> None:
    reg = _registry_with_v1(tmp_path)
    shown = _pending_v2(reg, tmp_path, adder("b + a"))
    assert "dyntools approve add_numbers 2 [" in shown  # no flag it does not need
    wrong = dt("approve", "add_numbers", "2", "--example",
               '{"params": {"a": 2, "b": 2}, "result": {"sum": 5}}', "--registry", str(reg))
    assert wrong.returncode == 12
    assert "stays pending" in wrong.stderr and "--example" in wrong.stderr
    assert manifest(reg, "add_numbers")["versions"][1]["status"] == "pending"
    # the same version, approved without the wrong example
    done = dt("approve", "add_numbers", "2", "--registry", str(reg))
    assert done.returncode == 0, done.stderr
    assert manifest(reg, "add_numbers")["current"] == 2


def test_the_contract_failing_without_the_flag_leaves_it_pending(tmp_path: Path) -> None:
    # v2 was verified against v1's contract; v3 then became current with another contract:
    # v2 approved now fails v3's promise, which is the reviewer's to waive, not v2's fault
    reg = _registry_with_v1(tmp_path)
    _pending_v2(reg, tmp_path, adder())  # identical behaviour, pending
    third = tmp_path / "v3.py"
    third.write_text(adder("a * b", '[{"params": {"a": 3, "b": 3}, "result": {"sum": 9}}]'))
    assert dt("approve", "add_numbers", "--file", str(third), "--contract-change",
              "--registry", str(reg)).returncode == 0
    assert manifest(reg, "add_numbers")["current"] == 3
    late = dt("approve", "add_numbers", "2", "--registry", str(reg))
    assert late.returncode == 12
    assert "--contract-change" in late.stderr and "stays pending" in late.stderr
    assert manifest(reg, "add_numbers")["versions"][1]["status"] == "pending"


def test_a_version_that_breaks_its_own_examples_is_still_rejected(tmp_path: Path) -> None:
    reg = _registry_with_v1(tmp_path)
    (reg / "add_numbers" / "v2.py").write_text(adder("a + b + 1"))  # dropped in, wrong
    bad = dt("approve", "add_numbers", "2", "--contract-change", "--registry", str(reg))
    assert bad.returncode == 12
    assert "recorded as rejected" in bad.stderr
    assert manifest(reg, "add_numbers")["versions"][1]["status"] == "rejected"
