"""Every node the restricted-code policy leaves in a tree has a position.

restrict_source skips ast.fix_missing_locations (it cost 0.3 ms a file): this pins the reason
it may, over every benign tool we have and the offline templates.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dyntools.sandbox import flow
from dyntools.sandbox.restrict import ToolPolicy

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "tests" / "gate" / "cases" / "accept").glob("*.py")) + sorted(
    (ROOT / "dyntools" / "generators" / "templates").glob("*.py")
)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_transformed_tree_has_every_position(path: Path) -> None:
    tree = ast.parse(path.read_text("utf-8"))
    errors: list[str] = []
    tree = ToolPolicy(errors, [], {}, flow.analyse(tree)).visit(tree)
    assert not errors
    missing = [
        type(node).__name__
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt | ast.expr) and not hasattr(node, "lineno")
    ]
    assert not missing
