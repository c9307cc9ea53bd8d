"""A tool file is parsed once per `ensure` by the gate: everything after it reads the gate's
report (`GateReport.metadata`, `declared_name`) instead of parsing the file again.

The sandbox transforms its own tree (RestrictedPython rewrites it, so it cannot share the
gate's); nothing else may parse the source, the registry's write path included (it reads the
report's NAME).
"""

from __future__ import annotations

import ast
import builtins
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dyntools.generators.base import GeneratedSource, ToolSpec
from dyntools.pipeline.dyntools import Dyntools

SOURCE = '''"""Counts the words of a text."""
import re

NAME = "count_words"
DESCRIPTION = "Counts the words of a text."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [
    {"params": {"text": "a b"}, "result": {"words": 2}},
    {"params": {"text": ""}, "result": {"words": 0}},
]


def run(params):
    return {"words": len(re.findall(r"\\S+", params["text"]))}
'''

# Who may parse the source during ensure, and how often.
ALLOWED = {
    "dyntools.gate": 1,              # the gate: the one parse everything else reads from
    # the sandbox's own tree, which RestrictedPython then transforms (parsed where the imports
    # are read first, so the worker can import them while the host transforms)
    "dyntools.sandbox.tool_imports": 1,
}


class OneSource:
    id = "one"
    model = None
    accepts_feedback = False

    def generate(self, spec: ToolSpec) -> GeneratedSource:
        return GeneratedSource(SOURCE, generator=self.id)


def test_ensure_parses_the_tool_file_once_in_the_pipeline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every parse is a compile to a tree (ast.parse's); it is put down to the module that
    # asked for it.
    callers: Counter[str] = Counter()
    real_compile = builtins.compile
    parsers = {"ast"}

    def counting_compile(source: Any, *args: Any, **kwargs: Any) -> Any:
        text = source.decode("utf-8") if isinstance(source, bytes) else source
        flags = args[2] if len(args) > 2 else kwargs.get("flags", 0)
        if text == SOURCE and flags & ast.PyCF_ONLY_AST:
            frame = sys._getframe(1)
            while frame.f_back is not None and frame.f_globals.get("__name__") in parsers:
                frame = frame.f_back
            callers[frame.f_globals.get("__name__", "?")] += 1
        return real_compile(source, *args, **kwargs)

    monkeypatch.setattr(builtins, "compile", counting_compile)
    with Dyntools(tmp_path / "reg", generator=OneSource()) as dt:
        result = dt.ensure("count_words")
        assert result.created and result.tool.description == "Counts the words of a text."
        assert dt.call("count_words", {"text": "x y z"}) == {"words": 3}
        assert dt.tool("count_words") is not None
    assert callers["dyntools.gate"] == 1, callers
    extra = {name: n for name, n in callers.items() if n > ALLOWED.get(name, 0)}
    assert not extra, f"parsed again after the gate by: {extra} (all parses: {dict(callers)})"
