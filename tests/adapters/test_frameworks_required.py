"""Framework adapters are optional extras: the base import stays light, and under `make test`
a missing framework fails loudly instead of skipping."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from typing import Any

import pytest

from .frameworks import ROOT, require

FRAMEWORKS = ("agents", "langchain_core", "smolagents", "pydantic_ai")


def test_a_missing_framework_is_an_error_when_extras_are_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DYNTOOLS_REQUIRE_EXTRAS", "1")
    with pytest.raises(ImportError):
        require("dyntools_no_such_framework", "nothing")


def test_a_missing_framework_skips_with_its_extra_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DYNTOOLS_REQUIRE_EXTRAS", raising=False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"pip install -e '\.\[nothing\]'"):
        require("dyntools_no_such_framework", "nothing")


def test_the_adapters_package_imports_no_framework() -> None:
    code = ("import sys, dyntools.adapters, dyntools.adapters.core; "
            f"print([m for m in {FRAMEWORKS!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    assert out == "[]"


def test_frameworks_are_extras_not_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = " ".join(project["dependencies"])
    for name in ("langchain", "smolagents", "pydantic-ai", "openai-agents"):
        assert name not in base
    extras = project["optional-dependencies"]
    assert {"openai-agents", "langchain", "smolagents", "pydantic-ai", "adapters"} <= set(extras)
    assert all(">=" in pin for key in ("openai-agents", "langchain", "smolagents", "pydantic-ai")
               for pin in extras[key])


def test_a_framework_editing_a_schema_cannot_change_the_catalog(catalog: Any) -> None:
    from dyntools.adapters.core import tool_entries

    before = json.dumps(catalog.get("add_numbers").params, sort_keys=True)
    for entry in tool_entries(catalog):
        entry.params["properties"]["a"]["type"] = "string"  # what a careless framework does
        entry.params["additionalProperties"] = False
    assert json.dumps(catalog.get("add_numbers").params, sort_keys=True) == before
