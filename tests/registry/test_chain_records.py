"""The decision record as a value (dyntools/registry/chain.py): what its signature covers, the
action table a later issue extends, and a check that meets input it was not written for and
refuses instead of raising."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dyntools.registry import chain
from dyntools.registry.signing import generate_keypair, load_signing_key

TIME = "2026-01-01T00:00:00+00:00"
REGISTRY = "0123456789abcdef0123456789abcdef"
DIGESTS = {1: "a" * 64, 2: "b" * 64}


@pytest.fixture(scope="module")
def signer(tmp_path_factory: pytest.TempPathFactory) -> Any:
    private, _, _ = generate_keypair(tmp_path_factory.mktemp("keys") / "alice.key")
    return load_signing_key(private)


def _record(signer: Any, seq: int = 0, prev: str | None = None, action: str = "activate",
            **extra: Any) -> dict[str, Any]:
    return chain.new_record(signer, tool="slugify_text", registry=REGISTRY, seq=seq, prev=prev,
                            action=action, versions=[1], current=1,
                            statuses={1: "approved", 2: "retired"}, digests=DIGESTS,
                            by="alice", time=TIME, reason="why", extra=extra or None)


def test_the_signed_bytes_are_canonical_json_behind_the_domain(signer: Any) -> None:
    record = _record(signer)
    data = chain.payload(record)
    assert data.startswith(b"dyntools-decision-v2\n")
    body = json.loads(data[len(chain.DOMAIN):])
    assert "signature" not in body and body["key"] == signer.public_key
    assert data == chain.payload(dict(reversed(list(record.items()))))  # order-free
    assert chain.digest_of(record) == chain.parse_record(record, "slugify_text", 0, None).digest


# what an action's own fields hold (chain.EXTRA_FIELDS), for the round trip
EXTRA_VALUES: dict[str, dict[str, Any]] = {"contract": {"contract": ["ab" * 32]}}


# an alias record moves no version and carries its target: tests/registry/test_aliases.py
@pytest.mark.parametrize("action", sorted(set(chain.ACTIONS) - {chain.ALIAS}))
def test_every_action_in_the_table_round_trips(signer: Any, action: str) -> None:
    first = _record(signer, action=action, **EXTRA_VALUES.get(action, {}))
    second = _record(signer, seq=1, prev=chain.digest_of(first), action="retire")
    check = chain.verify_chain([first, second], "slugify_text", frozenset({signer.public_key}))
    assert check.problem is None and check.head is not None
    assert (check.head.seq, check.head.current, dict(check.head.statuses)) == (
        1, 1, {1: "approved", 2: "retired"})


def test_an_action_added_to_the_table_carries_its_own_signed_fields(
        signer: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # what the alias action did (issue 28): one row in each table, nothing else
    monkeypatch.setattr(chain, "ACTIONS", {**chain.ACTIONS, "label": "a recorded label"})
    monkeypatch.setattr(chain, "EXTRA_FIELDS", {**chain.EXTRA_FIELDS,
                                                "label": frozenset({"label"})})
    record = _record(signer, action="label", label={"name": "slug", "to": "slugify_text"})
    trusted = frozenset({signer.public_key})
    assert chain.verify_chain([record], "slugify_text", trusted).problem is None
    edited = {**record, "label": {"name": "slug", "to": "other_tool"}}
    assert "signature does not hold" in str(chain.verify_chain([edited], "slugify_text",
                                                               trusted).problem)
    bare = {k: v for k, v in record.items() if k != "label"}
    assert "label are missing or unknown" in str(chain.verify_chain([bare], "slugify_text",
                                                                    trusted).problem)
    with pytest.raises(ValueError, match="carries exactly"):
        _record(signer, action="label")


def test_a_record_a_reader_would_refuse_is_never_made(signer: Any) -> None:
    with pytest.raises(ValueError, match="unknown decision"):
        _record(signer, action="promote")
    with pytest.raises(ValueError, match="longer than"):
        chain.new_record(signer, tool="t", registry=REGISTRY, seq=0, prev=None,
                         action="retire", versions=[1], current=None, statuses={1: "retired"},
                         digests={}, by="alice", time=TIME, reason="x" * (chain.MAX_TEXT + 1))


HOSTILE: list[Any] = [
    None, [], "record", 7, {}, {"action": {}}, {"action": ["approve"]},
    {"action": "approve", "tool": "slugify_text"},
    {**{k: None for k in chain.FIELDS}, "action": "approve", "signature": None},
    {**{k: 10**5000 for k in chain.FIELDS}, "action": "approve", "signature": "x"},
    {**{k: float("nan") for k in chain.FIELDS}, "action": "approve", "signature": "x"},
    {**{k: [[[[]]]] for k in chain.FIELDS}, "action": "approve", "signature": "x"},
]


@pytest.mark.parametrize("raw", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_records_are_refused_never_raised(signer: Any, raw: Any) -> None:
    check = chain.verify_chain([raw], "slugify_text", frozenset({signer.public_key}))
    assert check.problem is not None and check.head is None


def test_a_deep_or_broken_record_is_refused(signer: Any, tmp_path: Path) -> None:
    good = _record(signer)
    deep: Any = "x"
    for _ in range(100_000):
        deep = [deep]
    for raw in ({**good, "reason": deep}, {**good, "statuses": {"1": ["approved"]}},
                {**good, "statuses": {"01": "approved"}}, {**good, "seq": True},
                {**good, "seq": 0.0}, {**good, "versions": [0]}, {**good, "key": "!!"}):
        check = chain.verify_chain([raw], "slugify_text", frozenset({signer.public_key}))
        assert check.problem is not None, raw.get("seq")


def test_a_record_binds_the_content_of_what_it_approves_and_its_registry(signer: Any) -> None:
    record = _record(signer)
    assert record["sha256"] == {"1": "a" * 64}  # v2 is retired: no hash vouched for
    assert record["registry"] == REGISTRY
    head = chain.parse_record(record, "slugify_text", 0, None)
    trusted = frozenset({signer.public_key})
    statuses = {1: "approved", 2: "retired"}
    same = chain.judge("slugify_text", [record], 1, statuses, trusted, registry=REGISTRY,
                       digests=DIGESTS)
    assert same.code is None and same.head == head
    replaced = chain.judge("slugify_text", [record], 1, statuses, trusted, registry=REGISTRY,
                           digests={**DIGESTS, 1: "c" * 64})
    assert replaced.code == chain.CHAIN_MISMATCH  # nothing is served (state.served_current)
    assert "v1's content" in str(replaced.problem)
    elsewhere = chain.judge("slugify_text", [record], 1, statuses, trusted,
                            registry="f" * 32, digests=DIGESTS)
    assert elsewhere.code == chain.CHAIN_MISMATCH and "another registry" in str(
        elsewhere.problem)
    nowhere = chain.judge("slugify_text", [record], 1, statuses, trusted, registry=None,
                          digests=DIGESTS)
    assert nowhere.code == chain.CHAIN_MISMATCH and "no identity" in str(nowhere.problem)


@pytest.mark.parametrize("change", [
    {"sha256": {"1": "a" * 64, "2": "b" * 64}},  # a hash for a version it does not approve
    {"sha256": {}},  # none for the one it approves
    {"sha256": {"1": "A" * 64}},
    {"registry": "not-an-identity"},
])
def test_a_record_whose_bindings_are_malformed_is_refused(signer: Any,
                                                          change: dict[str, Any]) -> None:
    record = {**_record(signer), **change}
    check = chain.verify_chain([record], "slugify_text", frozenset({signer.public_key}))
    assert check.problem is not None and check.head is None
