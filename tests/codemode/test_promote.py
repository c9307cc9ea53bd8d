"""Promotion: a run that worked becomes a tool through `ensure` (gate, verify, persist under the
approval policy), callable by name with the run's inputs; what cannot be promoted says why."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from dyntools.codemode.promote import promoted_source
from dyntools.codemode.record import RunRecord
from dyntools.errors import GateRejected, PromotionRefused, SandboxViolation, UsageError
from dyntools.gate import check_source
from dyntools.pipeline.dyntools import Dyntools

from .conftest import TWO_CALLS

CAPS = '[tools]\nallow = ["word_count", "slugify_text"]\n'


def test_a_promoted_script_is_a_verified_tool_callable_by_name(
        registry_path: Path, tmp_path: Path) -> None:
    caps = tmp_path / "caps.toml"
    caps.write_text(CAPS, "utf-8")
    with Dyntools(registry_path) as dt:
        run = dt.run_code(TWO_CALLS, {"title": "Hello big World"})
        promoted = dt.promote(run.run_id, "title_facts")
        assert (promoted.created, promoted.record.status) == (True, "approved")
        assert promoted.verification is not None and promoted.verification.passed
        assert promoted.record.provenance["generator"] == "promote"
        assert promoted.record.provenance["run_id"] == run.run_id
        assert dt.run_record(run.run_id).promoted == {
            "tool": "title_facts", "version": 1, "sha256": promoted.record.sha256,
            "status": "approved"}
        source = dt.registry.read_recorded("title_facts", 1).decode()
        meta = check_source(source, dt.policy).metadata
        assert meta is not None
        assert meta.params == {"type": "object",
                               "properties": {"title": {"type": "string"}},
                               "required": ["title"]}
        assert [dict(e) for e in meta.examples] == [
            {"params": {"title": "Hello big World"},
             "result": {"words": 3, "slug": "hello-big-world"}}]
        assert meta.capabilities.tools == ("slugify_text", "word_count")
        assert 'host.call_tool("word_count"' in source.replace("'", '"')
        # A composing tool: without the operator's [tools] policy it composes nothing.
        with pytest.raises(SandboxViolation, match="no capability policy"):
            dt.call("title_facts", {"title": "Crème brûlée"})
        found = [tool.name for tool in dt.tools()]
        assert "title_facts" in found
    with Dyntools(registry_path, capabilities=caps) as granted:
        assert granted.call("title_facts", {"title": "Crème brûlée"}) == {
            "words": 2, "slug": "creme-brulee"}


def test_max_depth_holds_below_a_script(registry_path: Path, tmp_path: Path) -> None:
    """A promoted tool composes two more: a script calling it needs max_depth 2."""
    caps = tmp_path / "caps.toml"
    caps.write_text(CAPS.replace('"word_count"', '"word_count", "title_facts"'), "utf-8")
    with Dyntools(registry_path, capabilities=caps) as dt:
        run = dt.run_code(TWO_CALLS, {"title": "a b"})
        dt.promote(run.run_id, "title_facts")
        script = ("from host import ToolError\ntry:\n"
                  "    result = tools.title_facts(title='x y')\n"
                  "except ToolError as exc:\n    result = {'refused': exc.reason}\n")
        deep = dt.run_code(script, limits={"max_depth": 2})
        shallow = dt.run_code(script, limits={"max_depth": 1})
    assert deep.result == {"words": 2, "slug": "x-y"}
    assert shallow.result == {"refused": "sandbox_violation"}


def test_promotion_follows_the_approval_policy(registry_path: Path) -> None:
    with Dyntools(registry_path, approval="capabilities") as dt:
        run = dt.run_code(TWO_CALLS, {"title": "a"})
        held = dt.promote(run.run_id, "title_facts")
        assert held.pending and held.record.status == "pending"
        assert dt.registry.current("title_facts") is None
        plain = dt.run_code("result = {'twice': inputs['n'] * 2}\n", {"n": 2})
        free = dt.promote(plain.run_id, "double_it", description="Doubles n.")
    assert not free.pending  # declares no capabilities: nothing for a reviewer under this policy
    assert free.tool.description == "Doubles n."


def test_a_new_version_keeps_the_current_versions_contract(registry_path: Path) -> None:
    with Dyntools(registry_path) as dt:
        first = dt.run_code("result = {'n': inputs['n'] + 1}\n", {"n": 1})
        dt.promote(first.run_id, "plus_one")
        other = dt.run_code("result = {'n': inputs['n'] + 2}\n", {"n": 5})
        from dyntools.errors import VerificationFailed

        with pytest.raises(VerificationFailed):
            dt.promote(other.run_id, "plus_one")  # v1 promised {"n": 1} -> {"n": 2}
        same = dt.run_code("step = 1\nresult = {'n': inputs['n'] + step}\n", {"n": 7})
        assert dt.promote(same.run_id, "plus_one").version == 3


@pytest.mark.parametrize(("source", "inputs", "why"), [
    ("total = 0\ndef add(x):\n    return x + total\nresult = {'v': add(inputs['n'])}\n",
     {"n": 1}, "reads the script variable(s) 'total'"),
    ("def scale(x):\n    return x * inputs['k']\nresult = {'v': scale(2)}\n", {"k": 3},
     "reads the script variable(s) 'inputs'"),
    ("result = 5\n", {}, "not a JSON object"),
    ("def run(p):\n    return p\nresult = run({'a': 1})\n", {}, "binds 'run'"),
    ("host = 'example.com'\nresult = {'h': host}\n", {}, "binds 'host'"),
    ("def f():\n    return 1\nx = f()\ndef f():\n    return 2\nresult = {'x': x}\n", {},
     "binds 'f' twice"),
])
def test_what_cannot_be_promoted_says_why(dt: Dyntools, source: str, inputs: dict[str, Any],
                                          why: str) -> None:
    run = dt.run_code(source, inputs)
    assert run.status == "ok", run.as_dict()
    with pytest.raises(PromotionRefused, match=re.escape(why)):
        dt.promote(run.run_id, "never_made")
    assert "never_made" not in dt.registry.names()


def test_a_def_may_read_constants_imports_and_other_defs(dt: Dyntools) -> None:
    source = ('"""Scales and slugs."""\nimport re\n\nFACTOR = 3\nSEP = ("-",)\n\n\n'
              "def scale(x):\n    return x * FACTOR\n\n\n"
              "def slug(text):\n    return re.sub(r'\\s+', SEP[0], text.lower())\n\n\n"
              "def both(x, text):\n    return [scale(x), slug(text)]\n\n\n"
              "result = {'v': both(inputs['n'], inputs['t'])}\n")
    run = dt.run_code(source, {"n": 2, "t": "A B"})
    assert run.result == {"v": [6, "a-b"]}
    made = dt.promote(run.run_id, "scale_and_slug")
    assert made.tool.description == "Scales and slugs."
    assert dt.call("scale_and_slug", {"n": 5, "t": "X Y"}) == {"v": [15, "x-y"]}


def test_global_and_runs_that_did_not_end_ok_are_refused(dt: Dyntools) -> None:
    failed = dt.run_code("result = 1 / 0\n")
    with pytest.raises(PromotionRefused, match="only a run that ended ok"):
        dt.promote(failed.run_id, "nope")
    refused = dt.run_code("import os\nresult = {}\n")
    with pytest.raises(PromotionRefused):
        dt.promote(refused.run_id, "nope")
    # `global` cannot pass today's gate in a script; the promotion refuses it on its own.
    record = RunRecord.new("COUNT = 0\ndef bump():\n    global COUNT\n    COUNT += 1\n"
                           "bump()\nresult = {'c': COUNT}\n", "x", "y", {}, {}, "registry")
    record.status, record.result = "ok", {"c": 1}
    with pytest.raises(PromotionRefused, match="uses global"):
        promoted_source(record, "nope", None)
    with pytest.raises(UsageError):
        dt.promote(failed.run_id, "Not A Name")


def test_a_promoted_file_the_gate_refuses_is_not_written(dt: Dyntools) -> None:
    run = dt.run_code("result = {'x': 1}\n")
    with pytest.raises(GateRejected):
        dt.promote(run.run_id, "hidden_text", description="Looks fine\u202e but is not")
    assert "hidden_text" not in dt.registry.names()


def test_with_trusted_keys_a_promotion_is_a_signed_decision(tmp_path: Path) -> None:
    from dyntools.errors import SigningKeyRequired
    from dyntools.registry import Registry
    from dyntools.registry.signing import generate_keypair, load_signing_key

    key, _, public = generate_keypair(tmp_path / "alice.key")
    root = tmp_path / "registry"
    Registry.open(root, create=True)
    trusted = frozenset({public})
    with Dyntools(Registry.open(root, trusted_keys=trusted)) as dt:
        run = dt.run_code("result = {'n': inputs['n'] * 3}\n", {"n": 2})
        with pytest.raises(SigningKeyRequired):
            dt.promote(run.run_id, "triple")
        assert "triple" not in dt.registry.names()
    with Dyntools(Registry.open(root, trusted_keys=trusted),
                  signer=load_signing_key(key)) as signed:
        made = signed.promote(run.run_id, "triple")
        assert made.record.signature is not None
        assert made.record.signature["key"] == public
        assert signed.call("triple", {"n": 5}) == {"n": 15}
