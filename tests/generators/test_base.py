from __future__ import annotations

import pytest

from dyntools.errors import UsageError
from dyntools.gate.findings import Finding
from dyntools.generators import GeneratedSource, ToolSpec
from dyntools.generators.base import excerpt


@pytest.mark.parametrize(
    "name", ["", "Slugify", "../etc", "a.b", "a-b", "class", "naïve", "x" * 65, "1abc"]
)
def test_spec_refuses_bad_tool_names(name) -> None:
    with pytest.raises(UsageError):
        ToolSpec(name)


def test_spec_examples_become_a_tuple() -> None:
    spec = ToolSpec("t", examples=[{"params": {}, "result": {}}])
    assert isinstance(spec.examples, tuple)


def test_with_feedback_keeps_the_request() -> None:
    spec = ToolSpec("t", "does t", params={"type": "object"})
    finding = Finding(3, 5, "DT401", "builtin 'eval' is not allowed")
    retried = spec.with_feedback("eval('1')\n", [finding])
    assert (retried.name, retried.description, retried.params) == ("t", "does t", spec.params)
    assert retried.feedback.render() == "3:5: DT401 builtin 'eval' is not allowed"
    assert spec.feedback is None


def test_provenance() -> None:
    generated = GeneratedSource("x\n", "anthropic", "claude", 2, "ab" * 32, "raw")
    assert generated.as_provenance() == {
        "generator": "anthropic", "model": "claude", "attempts": 2, "prompt_sha256": "ab" * 32,
    }


def test_excerpt_is_bounded() -> None:
    assert excerpt("short") == "short"
    assert len(excerpt("x" * 10_000, limit=100)) < 130
