"""Shared by the framework adapter tests: loading an example, and the rule that a missing
framework fails loudly under `make test` (which installs every extra) instead of skipping."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.environment import everything_required

ROOT = Path(__file__).resolve().parents[2]


def require(module: str, extra: str) -> ModuleType:
    """Import a framework. Under `make test` (DYNTOOLS_REQUIRE_EXTRAS=1) or CI a missing one
    is an error; elsewhere the tests skip, saying which extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if everything_required():
            raise
        pytest.skip(f"{module} is not installed: pip install -e '.[{extra}]' "
                    "(make test installs it)", allow_module_level=True)
        raise


def load_example(name: str) -> Any:
    path = ROOT / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
