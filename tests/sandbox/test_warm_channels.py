"""Red team 2 (issue 26): what a warm worker carries from one caller to the next besides the
values the state check compares.

- G1: a set's hash table (its size, its deleted slots, its pop position) decides the order in
  which later additions come out: every set and dict the walk meets as a value is rebuilt to
  its canonical table after each call (`state.Tables`);
- G2: the memory allocator (which freed block comes back next, an address `repr()` shows)
  cannot be reset inside a process: `isolation="call"` gives each call a process of its own;
- G3: `ipaddress`'s class-level netmask caches are emptied after each call, and a library
  class's private containers are compared item by item;
- G5: csv's dialect registry is compared in its order.

The contained corpus (tests/gate/cases/contained/, state_set_*, cache_ipaddress_netmask,
state_csv_dialect_order) runs the cut-down reproducers on one warm worker.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dyntools.errors import UsageError
from dyntools.generators.file import FileGenerator
from dyntools.pipeline.dyntools import Dyntools
from dyntools.sandbox import SandboxLimits, WorkerPool
from dyntools.sandbox.worker.state import ModuleState, Tables

CASES = Path(__file__).resolve().parent / "warm_channels"


def _probe(box: set[int]) -> list[int]:
    box.add(8)
    box.add(1)
    seen = list(box)
    box.discard(8)
    box.discard(1)
    return seen


# -- G1: the tables, in this process ----------------------------------------------------------

def test_a_grown_set_gets_its_canonical_table_back() -> None:
    box = {0}
    tables = Tables([box])
    tables.rebuild()
    clean = _probe(box)
    tables.rebuild()
    for k in range(200, 300):
        box.add(k)
    for k in range(200, 300):
        box.discard(k)
    assert _probe(box) != clean  # the channel: same item, another table
    tables.rebuild()
    assert _probe(box) == clean


def test_deleted_slots_without_growth_are_gone_after_a_rebuild() -> None:
    """Why a size comparison would not do: the same size, another order."""
    box, dirty = {0}, {0}
    tables = Tables([box, dirty])
    tables.rebuild()
    for k in (3, 4, 5):
        dirty.add(k)
    for k in (3, 4, 5):
        dirty.discard(k)
    assert sys.getsizeof(box) == sys.getsizeof(dirty) and _probe(box) != _probe(dirty)
    tables.rebuild()
    assert _probe(box) == _probe(dirty)


def test_the_pop_position_is_the_same_after_a_rebuild() -> None:
    first, second = {0, 1, 2, 3, 4, 5}, {0, 1, 2, 3, 4, 5}
    tables = Tables([first, second])
    for _ in range(3):
        second.add(second.pop())
    tables.rebuild()
    popped = first.pop(), second.pop()
    assert popped[0] == popped[1]


def test_dicts_keep_their_items_and_order_through_a_rebuild() -> None:
    import collections

    plain = {"b": 1, "a": [2]}
    ordered = collections.OrderedDict(x=1, y=2)
    counts = collections.Counter(a=10**30)
    groups = collections.defaultdict(list, {"k": [1]})
    before = [list(plain.items()), list(ordered.items()), list(counts.items()),
              list(groups.items())]
    Tables([plain, ordered, counts, groups]).rebuild()
    after = [list(plain.items()), list(ordered.items()), list(counts.items()),
             list(groups.items())]
    assert all(map(lambda x, y: all(map(lambda p, q: p[0] is q[0] and p[1] is q[1], x, y)),
                   before, after))
    assert groups.default_factory is list


def test_the_state_check_rebuilds_only_what_is_unchanged() -> None:
    namespace: dict[str, Any] = {"BOX": {0}}
    state = ModuleState(namespace)
    assert not state.opaque, state.reasons
    clean = _probe({0})
    box = namespace["BOX"]
    for k in range(200, 300):
        box.add(k)
    for k in range(200, 300):
        box.discard(k)
    assert not state.changed()  # the same item: the worker stays warm
    assert _probe(box) == clean  # and the next caller meets the canonical table
    box.add(7)
    assert state.changed()


def test_an_allowed_members_set_is_rebuilt_or_spends_the_worker() -> None:
    """A tool with no constants at all can reach `hashlib.algorithms_available`: a deleted
    slot left in it is gone after the check; a grown table, which orders the same names
    otherwise, is seen as a change."""
    import hashlib

    names = hashlib.algorithms_available
    state = ModuleState({}, members=[names])
    assert not state.opaque, state.reasons
    canonical = list(names)
    (table,) = [items for container, items in state.tables.entries if container is names]
    names.add(-1)
    names.discard(-1)
    assert not state.changed() and list(names) == canonical
    fresh: set[Any] = set()
    fresh.add(0)
    fresh.pop()
    fresh.clear()
    fresh.update(table)
    assert [_probe(names)] == [_probe(fresh)]  # no deleted slot left: the same table
    for k in range(1000):
        names.add(k)
    for k in range(1000):
        names.discard(k)
    assert list(names) != canonical and state.changed()
    state.tables.rebuild()
    assert list(names) == canonical


# -- G3: library class containers, in this process --------------------------------------------

def test_a_library_class_cache_changed_in_place_is_seen() -> None:
    import ipaddress

    from dyntools.sandbox.worker.caches import find_clearers

    cache = ipaddress._BaseV4._netmask_cache
    saved = dict(cache)
    try:
        cache.clear()
        state = ModuleState({}, members=[ipaddress.IPv4Network])
        assert not state.opaque, state.reasons
        assert not state.changed()
        ipaddress.IPv4Network(("0.0.0.0", True))
        assert state.changed(), "the namespace holds the same dict, changed in place"
        clearers = find_clearers()
        assert cache.clear in clearers or any(
            getattr(clear, "__self__", None) is cache for clear in clearers)
        for clear in clearers:
            if getattr(clear, "__self__", None) is cache:
                clear()
        assert not state.changed()
    finally:
        cache.clear()
        cache.update(saved)


FLAGS_TOOL = '''
import ipaddress
import re

NAME = "flags"
DESCRIPTION = "Matches words."
PARAMS = {"type": "object", "properties": {"word": {"type": "string"}}}


def run(params):
    pattern = re.compile(params["word"], re.I | re.M | re.S | re.X | re.A)
    network = ipaddress.IPv4Network(("0.0.0.0", len(params["word"]) % 32))
    return {"match": bool(pattern.match("Word")), "prefix": network.prefixlen}
'''


def test_enum_pseudo_members_and_emptied_caches_keep_the_warm_worker(tmp_path: Path,
                                                                      policy: Any) -> None:
    """`re.I | re.M` makes a pseudo-member in the flag class's value map (made from the
    value alone, it holds nothing of a caller: state.LIBRARY_KEPT), and a network fills the
    netmask cache the worker empties: neither spends the worker."""
    path = tmp_path / "flags.py"
    path.write_text(FLAGS_TOOL, encoding="utf-8")
    with WorkerPool(path, module_name="flags_v1", policy=policy, size=1,
                    source=FLAGS_TOOL) as pool:
        answers = [pool.call({"word": word}) for word in ("word", "x", "w.*")]
        stats = pool.stats
    assert answers == [{"match": True, "prefix": 4}, {"match": False, "prefix": 1},
                       {"match": True, "prefix": 3}]
    assert stats["started"] == 1 and stats["replaced"] == 0, stats


# -- G2: per-call isolation, through the public path ------------------------------------------

def _calls(tmp_path: Path, case: str, isolation: str, secrets: list[str]) -> list[Any]:
    path = CASES / f"{case}.py"
    answers: list[Any] = []
    with Dyntools(tmp_path / "registry", generator=FileGenerator(path), pool_size=1,
                  limits=SandboxLimits(timeout_s=20.0), isolation=isolation) as dt:
        assert dt.ensure(case).version == 1
        for secret in secrets:
            dt.call(case, {"secret": secret})
            answers.append(dt.call(case, {})["previous_caller_secret"])
    return answers


@pytest.mark.parametrize("case", ["leak_heap_bytes", "leak_set_table_bytes"])
def test_per_call_isolation_leaks_nothing_of_the_previous_caller(tmp_path: Path,
                                                                 case: str) -> None:
    """G2 (and G1): under `isolation="call"` the receiver runs in a process no other call
    ran in, so what it reads cannot depend on what the caller before it did."""
    secrets = ["hi", "PW", "ok"]
    answers = _calls(tmp_path, case, "call", secrets)
    assert not set(secrets) & set(answers), answers


def test_the_allocator_channel_is_open_on_a_warm_worker(tmp_path: Path) -> None:
    """What per-call isolation closes, and a warm worker cannot (docs/sandbox.md): the same
    reproducer, on one warm worker, hands the receiver the sender's secret."""
    secrets = ["hi", "PW", "ok"]
    answers = _calls(tmp_path, "leak_heap_bytes", "worker", secrets)
    assert sum(map(str.__eq__, answers, secrets)) >= 2, answers


def test_per_call_isolation_never_hands_a_used_worker_back(policy: Any) -> None:
    path = CASES / "leak_heap_bytes.py"
    with WorkerPool(path, module_name="leak_heap_bytes_v1", policy=policy, size=1,
                    source=path.read_text(encoding="utf-8"), isolation="call") as pool:
        pool.start()
        for _ in range(3):
            pool.call({})
        stats = pool.stats
    assert stats["calls"] == 3 and stats["started"] >= 3 and pool.max_calls_per_worker == 1


def test_an_unknown_isolation_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="isolation must be one of 'worker', 'call'"):
        Dyntools(tmp_path / "registry", isolation="process")


def test_the_cli_takes_isolation(tmp_path: Path) -> None:
    dyntools = str(Path(sys.executable).parent / "dyntools")
    registry = tmp_path / "registry"
    path = CASES / "leak_heap_bytes.py"
    with Dyntools(registry, generator=FileGenerator(path)) as dt:
        assert dt.ensure("leak_heap_bytes").version == 1
    done = subprocess.run([dyntools, "call", "leak_heap_bytes", "--registry", str(registry),
                           "--isolation", "call", "--params", '{"secret": "hi"}'],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and json.loads(done.stdout) == {"stored": True}, done.stderr
    wrong = subprocess.run([dyntools, "call", "leak_heap_bytes", "--registry", str(registry),
                            "--isolation", "process"], capture_output=True, text=True, check=False,
                           timeout=120)
    assert wrong.returncode == 2 and "'process' is not one of 'worker', 'call'" in wrong.stderr
    helped = subprocess.run([dyntools, "serve-mcp", "--help"], capture_output=True, text=True, check=False,
                            timeout=120)
    assert "--isolation [worker|call]" in helped.stdout
