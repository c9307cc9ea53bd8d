from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dyntools.catalog.core import Catalog
from dyntools.pipeline.dyntools import Dyntools

ADD_PARAMS = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}


def add_numbers(params: dict[str, Any]) -> dict[str, Any]:
    """Adds two numbers."""
    return {"sum": params["a"] + params["b"]}


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    """A hand-written tool in front of an empty registry; generation is off unless asked."""
    with Catalog(Dyntools(tmp_path / "registry"), generate=False) as built:
        built.add("add_numbers", add_numbers, params=ADD_PARAMS)
        yield built
