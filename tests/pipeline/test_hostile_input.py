"""Caller input nested deeper than the JSON encoder's stack is a usage error, not a crash."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from dyntools.errors import GenerationError, UsageError
from dyntools.generators import file as file_generator
from dyntools.generators.base import ToolSpec
from dyntools.generators.file import FileGenerator
from dyntools.pipeline.dyntools import Dyntools
from dyntools.pipeline.toolmeta import params_validator
from dyntools.pipeline.verify import MAX_CALLER_EXAMPLE_BYTES, MAX_CALLER_EXAMPLES, collect_examples


def _nested(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth):
        node["a"] = {}
        node = node["a"]
    return root


def test_a_params_schema_nested_past_the_stack_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="not JSON"):
        params_validator({"type": "object", "x": _nested(5000)})


def test_an_example_nested_past_the_stack_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="not JSON data"):
        collect_examples(caller=({"params": {"z": _nested(5000)}, "result": {}},))


@pytest.mark.parametrize("spec", [None, b"slugify_text", 5])
def test_ensure_refuses_a_spec_that_is_neither_a_name_nor_a_toolspec(
    tmp_path: Path, spec: Any
) -> None:
    with Dyntools(tmp_path / "registry") as dyntools, pytest.raises(UsageError, match="ToolSpec"):
        dyntools.ensure(spec)


def test_the_file_generator_stops_reading_past_its_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_generator, "MAX_READ_BYTES", 1000)
    endless = io.BytesIO(b"#" * 5000)
    with pytest.raises(GenerationError, match="larger than 1000 bytes"):
        FileGenerator(stdin=endless).generate(ToolSpec("echo_tool", "", None, ()))
    assert endless.tell() == 1001


def test_caller_examples_are_bounded_in_count_and_size() -> None:
    """They end up in the manifest as the contract: unbounded, one call could bloat it."""
    many = [{"params": {"n": n}, "result": {}} for n in range(MAX_CALLER_EXAMPLES + 1)]
    with pytest.raises(UsageError, match="at most"):
        collect_examples(caller=many)
    big = [{"params": {"t": "x" * (MAX_CALLER_EXAMPLE_BYTES // 2)}, "result": {}}] * 3
    with pytest.raises(UsageError, match="bytes of JSON"):
        collect_examples(caller=big)
    assert len(collect_examples(caller=many[:MAX_CALLER_EXAMPLES])) == MAX_CALLER_EXAMPLES
