"""A decision recorded on a version is shown as signed only when a verified chain record vouches
for it (red team F9): a registry writer with no key wrote a decision "approve by
security-team ... audited line by line" with any `signed_by_key`, and `review --trusted-keys`
and `show` printed it "(signed)" and exited 0. Real processes, real registry folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .chain_scenes import Operator, copy_registry, edit_manifest

FORGED = {"action": "approve", "by": "security-team", "reason": "audited line by line",
          "signed_by_key": "A" * 43 + "=", "time": "2026-01-01T00:00:00+00:00"}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Operator:
    op = Operator(tmp_path_factory.mktemp("marks"))
    op.ok("init", str(op.reg))
    op.ok("ensure", "slugify_text", key=True)
    op.ok("ensure", "slugify_text", "--new-version", key=True)
    return op


@pytest.fixture
def op(base: Operator, tmp_path: Path) -> Operator:
    copy = Operator(tmp_path, keys=base)
    copy_registry(base.reg, copy.reg)
    return copy


def _decisions(review: dict[str, Any], version: int) -> list[dict[str, Any]]:
    tool = next(t for t in review["tools"] if t["name"] == "slugify_text")
    found: list[dict[str, Any]] = next(
        v for v in tool["versions"] if v["version"] == version)["decisions"]
    return found


def test_decisions_signed_in_the_chain_are_shown_signed(op: Operator) -> None:
    code, review = op.review()
    assert code == 0, review
    assert [d["signature"] for d in _decisions(review, 2)] == ["signed"]
    assert review["summary"]["unverified_decisions"] == 0
    text = op.ok("review").stdout
    assert "(signed)" in text and "(claims a signature" not in text


def test_a_forged_decision_is_not_shown_signed_and_fails_review(op: Operator) -> None:
    edit_manifest(op.reg, "slugify_text",
                  lambda m: m["versions"][0].__setitem__("decisions", [FORGED]))
    code, review = op.review()
    assert code == 1
    assert [d["signature"] for d in _decisions(review, 1)] == ["does_not_verify"]
    assert review["summary"]["unverified_decisions"] == 1
    text = op.dt("review").stdout
    line = next(x for x in text.splitlines() if "security-team" in x)
    assert "(signed)" not in line and "does not verify" in line
    shown = op.ok("show", "slugify_text", "--version", "1").stdout
    line = next(x for x in shown.splitlines() if "security-team" in x)
    assert "(signed)" not in line and "does not verify" in line


def test_a_signed_decision_copied_onto_another_version_does_not_verify(op: Operator) -> None:
    """The decision is genuine (its chain record verifies), but the record names v2 only."""
    def copy_decision(data: dict[str, Any]) -> None:
        data["versions"][0]["decisions"] = list(data["versions"][1]["decisions"])

    edit_manifest(op.reg, "slugify_text", copy_decision)
    code, review = op.review()
    assert code == 1
    assert [d["signature"] for d in _decisions(review, 1)] == ["does_not_verify"]


def test_without_trusted_keys_a_claimed_signature_is_said_unchecked(op: Operator) -> None:
    edit_manifest(op.reg, "slugify_text",
                  lambda m: m["versions"][0].__setitem__("decisions", [FORGED]))
    done = op.dt("review", trusted=False)
    line = next(x for x in done.stdout.splitlines() if "security-team" in x)
    assert "(signed)" not in line and "signature not checked: no trusted keys" in line
