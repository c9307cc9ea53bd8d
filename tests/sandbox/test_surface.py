"""The public surface, and the worker's import set (its start-up is the cold-call budget)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import dyntools.sandbox as sandbox

ROOT = Path(__file__).resolve().parents[2]


def test_public_api_is_pinned():
    assert sorted(sandbox.__all__) == sorted(
        ["LAYERS", "CallOutcome", "SandboxLimits", "WorkerPool", "probe_layers", "run_once"]
    )
    for name in sandbox.__all__:
        assert getattr(sandbox, name) is not None


def test_the_worker_imports_nothing_heavy():
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r});"
        "import dyntools.sandbox.worker.process, dyntools.sandbox.worker.guards, dyntools.sandbox.worker.layers,"
        " dyntools.sandbox.worker.audit, dyntools.sandbox.worker.astcodec;"
        "print(sorted(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True,
                         text=True, check=True).stdout
    loaded = set(ast.literal_eval(out))
    forbidden = {"typing", "ctypes", "RestrictedPython", "click", "structlog", "anthropic",
                 "pyseccomp", "subprocess", "ast", "json", "re", "enum", "tomllib",
                 "contextlib", "threading", "dyntools.generators", "dyntools.registry",
                 "dyntools.gate"}
    assert not loaded & forbidden, loaded & forbidden
