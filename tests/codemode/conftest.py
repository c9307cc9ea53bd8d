"""A registry with two offline tools (word_count, slugify_text) and scripts that call them."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dyntools.codemode.seal import SEAL_FIELD, seal_key, seal_of
from dyntools.codemode.store import RunStore
from dyntools.generators.offline import template_source
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry

TWO_CALLS = '''"""Counts a title's words, then slugs it."""
print("start", inputs["title"])
words = tools.word_count(text=inputs["title"])
print("counted", words["words"])
slug = tools.slugify_text(text=inputs["title"])
print("slugged")
result = {"words": words["words"], "slug": slug["slug"]}
'''


def registry_with(root: Path, *, pending: tuple[str, ...] = ()) -> Path:
    """word_count and slugify_text; those named in `pending` wait for a reviewer."""
    registry = Registry.open(root, create=True)
    for name in ("word_count", "slugify_text"):
        if name in pending:
            registry.add_version(name, template_source(name), {"generator": "test"},
                                 activate=False, status="pending", reason="awaiting approval")
        else:
            registry.add_version(name, template_source(name), {"generator": "test"})
    return root


@pytest.fixture
def registry_path(tmp_path: Path) -> Path:
    return registry_with(tmp_path / "registry")


@pytest.fixture
def dt(registry_path: Path) -> Iterator[Dyntools]:
    with Dyntools(registry_path) as built:
        yield built


def audit_events(path: Path, prefix: str = "run.") -> list[dict[str, Any]]:
    if not path.exists():
        return []
    events = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    return [event for event in events if str(event.get("event", "")).startswith(prefix)]


def rewrite_record(store: RunStore, run_id: str, change: Any, *, reseal: bool) -> None:
    """Edit kept run `run_id` in place. `reseal=True` seals it again with this user's key,
    as dyntools itself would have kept it (to test what a resume or a load does with such a
    record); `reseal=False` is an edit made through the registry's folder alone."""
    path = store.path_of(run_id)
    data = json.loads(path.read_text("utf-8"))
    change(data)
    if reseal:
        data[SEAL_FIELD] = seal_of(seal_key(), store.registry_root, data)
    path.write_text(json.dumps(data), "utf-8")
    os.chmod(path, 0o600)
