"""Fixtures for pipeline and catalog tests: a registry folder, a counting generator, and
tool sources written for the occasion (each passes the gate unless a test says otherwise)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from structlog.testing import capture_logs

from dyntools.generators.base import GeneratedSource, ToolSpec
from dyntools.pipeline.dyntools import Dyntools


class CountingGenerator:
    """A generator test double: hands out fixed sources by tool name and counts requests."""

    id = "counting"
    model = None
    accepts_feedback = False

    def __init__(self, sources: dict[str, str] | None = None) -> None:
        self.sources = dict(sources or {})
        self.calls: list[str] = []

    def generate(self, spec: ToolSpec) -> GeneratedSource:
        self.calls.append(spec.name)
        return GeneratedSource(self.sources[spec.name], generator=self.id)


def tool_source(
    name: str,
    result: str = '{"echo": params["text"]}',
    examples: list[dict[str, Any]] | None = None,
    params: dict[str, Any] | None = None,
    body: str = "",
) -> str:
    """A small valid tool whose run(params) returns `result` (a Python expression)."""
    schema = params or {
        "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
    }
    lines = [
        f'"""The {name} test tool."""',
        "",
        f"NAME = {name!r}",
        f"DESCRIPTION = {('Test tool ' + name)!r}",
        f"PARAMS = {json.dumps(schema)}",
    ]
    if examples is not None:
        lines.append(f"EXAMPLES = {examples!r}")
    lines += ["", "", "def run(params):"]
    lines += [f"    {line}" for line in body.splitlines()]
    lines.append(f"    return {result}")
    return "\n".join(lines) + "\n"


ECHO_EXAMPLES = [{"params": {"text": "a"}, "result": {"echo": "a"}}]


@pytest.fixture
def registry_dir(tmp_path: Path) -> Path:
    return tmp_path / "reg"


@pytest.fixture
def generator() -> CountingGenerator:
    return CountingGenerator({"echo_text": tool_source("echo_text", examples=ECHO_EXAMPLES)})


@pytest.fixture
def dt(registry_dir: Path, generator: CountingGenerator) -> Iterator[Dyntools]:
    with Dyntools(registry_dir, generator=generator) as pipeline:
        yield pipeline


@pytest.fixture(autouse=True)
def _reset_structlog() -> Iterator[None]:
    """A CLI run configures structlog globally (its stderr, an audit file): undo it."""
    structlog.reset_defaults()
    yield
    structlog.reset_defaults()


@contextlib.contextmanager
def audit_capture() -> Iterator[list[dict[str, Any]]]:
    """Every event from here on, at every level.

    `capture_logs` keeps the configured level filter, and `configure_logging` filters info
    out when there is no audit file; resetting first makes the capture independent of
    whatever configured structlog before.
    """
    structlog.reset_defaults()
    with capture_logs() as logs:
        yield logs
