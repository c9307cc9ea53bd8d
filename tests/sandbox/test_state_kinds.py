"""Issue 26: every kind of object an allowed module can hand out is either compared by the
warm-worker state check or spends the worker (`state_kinds_walk.py` says how it is driven
from the allow-list). Run in a fresh interpreter: it calls every allowed member, and some of
them change process-wide state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.sandbox.state_kinds_walk import MAX_VALUES
from tests.support.fresh import fresh_stdout

ROOT = Path(__file__).resolve().parents[2]

# A few kinds each verdict must hold, so that a walk that stopped early (or a check that
# spent everything) cannot pass unnoticed.
COMPARED = {
    "builtins.dict", "builtins.list", "builtins.set", "builtins.bytearray", "builtins.slice",
    "builtins.builtin_function_or_method", "builtins.method", "builtins.function",
    "functools.partial", "collections.deque", "collections.Counter",
    "collections.OrderedDict", "collections.defaultdict", "decimal.Decimal", "re.Pattern",
}
SPENT = {
    "random.Random", "itertools.count", "builtins.generator", "builtins.list_iterator",
    "builtins.map", "builtins.zip", "_hashlib.HASH", "zlib.Compress", "_io.StringIO",
    "collections.abc.KeysView", "csv.Sniffer", "builtins.ValueError",
}


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    probe = "from tests.sandbox.state_kinds_walk import main; main()"
    return dict(json.loads(fresh_stdout(probe, cwd=ROOT)))


def test_every_kind_is_compared_or_spends_the_worker(report):
    assert report["failures"] == []


def test_the_walk_covers_the_allow_list(report):
    assert 500 < report["values"] < MAX_VALUES
    assert report["shapes"] >= 300  # kinds, with the kinds of what they hold
    assert set(report["compared"]) >= COMPARED, COMPARED - set(report["compared"])
    assert set(report["spent"]) >= SPENT, SPENT - set(report["spent"])
    for kind, (where, reason) in report["spent"].items():
        assert "walk failed" not in reason, (kind, where, reason)


def test_no_allowed_module_spends_the_worker_of_a_tool_that_imports_it(report):
    assert report["members_spent"] == {}
