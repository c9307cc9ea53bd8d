"""A repair through the real model SDKs (issue 32), against the stub on 127.0.0.1: the model is
shown the current source and the failure in the gate findings' shape (the prompt's run
feedback), and a wrong second answer is fed back the same way until one passes."""

from __future__ import annotations

from pathlib import Path

from dyntools.gate.findings import Finding
from dyntools.generators import ToolSpec
from dyntools.generators.base import RUN
from dyntools.generators.prompt import build_prompt
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry

from .flavors import Flavor
from .stub_server import StubServer

SLUG = '''"""Turns a title into a URL slug."""
import re

NAME = "slug"
DESCRIPTION = "Turns a title into a URL slug."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [{"params": {"text": "Hello World"}, "result": {"slug": "hello-world"}}]


def run(params):
    return {"slug": re.sub(r"[^a-z0-9]+", "-", params["text"].lower())}
'''
FIXED = SLUG.replace('.lower())}', '.lower()).strip("-")}')
WRONG = SLUG.replace('.lower())}', '.upper())}')


def test_run_feedback_reads_as_a_failed_run_not_a_gate_rejection(policy) -> None:
    finding = Finding(10, 1, "DR101", 'run({"text": "Hi!"}) returned {"slug": "hi-"}; '
                                      'expected {"slug": "hi"}')
    spec = ToolSpec("slug", "Turns a title into a URL slug.").with_feedback(SLUG, [finding],
                                                                            RUN)
    prompt = build_prompt(spec, policy)
    _, shown, feedback = prompt.messages
    assert shown.role == "assistant" and SLUG in shown.text
    assert feedback.role == "user" and "ran in the sandbox" in feedback.text
    assert '10:1: DR101 run({"text": "Hi!"})' in feedback.text
    assert "The gate rejected" not in feedback.text
    gate = ToolSpec("slug").with_feedback(SLUG, [Finding(1, 1, "DT201", "no")])
    assert "The gate rejected" in build_prompt(gate, policy).messages[-1].text


def test_a_repair_through_the_sdk_feeds_each_failure_back(flavor: Flavor, stub: StubServer,
                                                          policy, tmp_path: Path) -> None:
    root = tmp_path / "reg"
    Registry.open(root).add_version("slug", SLUG, {"generator": "test"})
    stub.script(flavor.answer(f"```python\n{WRONG}```"),
                flavor.answer(f"```python\n{FIXED}```"))
    generator = flavor.generator(stub.url, policy=policy)
    with Dyntools(root, allow_unreviewed_repairs=True) as dt:
        result = dt.repair("slug", {"text": "Hi!"}, {"slug": "hi"}, generator=generator)
        assert dt.call("slug", {"text": "Hi!"}) == {"slug": "hi"}
    assert result.record.provenance["generator"] == flavor.name
    assert len(result.attempts) == 2 and len(stub.requests) == 2
    first, second = (flavor.conversation(r) for r in stub.requests)
    assert SLUG in _text(first[-2]) and "DR101" in _text(first[-1])
    assert '{"slug": "hi-"}' in _text(first[-1])  # what the current version returned
    assert WRONG in _text(second[-2])  # the second attempt sees its own failed source
    assert "DR101" in _text(second[-1]) and '{"slug": "-"}' in _text(second[-1])


def _text(turn: dict[str, object]) -> str:
    content = turn["content"]
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)
