"""Caller input nested deeper than the JSON encoder's stack is a usage error, not a crash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dyntools.errors import UsageError
from dyntools.pipeline import Dyntools
from dyntools.toolmeta import params_validator
from dyntools.verify import collect_examples


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
