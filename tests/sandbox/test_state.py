"""Issue 9, finding 12: a warm worker never carries one caller's data into another's call.

A call that changes the tool's module state (a module-level cache, a mutable default, a
rebound global, process-wide library state) spends its worker: the reply says so, the worker
ends, and the next call gets a fresh one. A tool that keeps no state keeps its warm worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from dyntools.sandbox import SandboxLimits, WorkerPool

STATEFUL = {
    "cache": '''
SEEN = {}


def run(params):
    previous = SEEN.get("last")
    SEEN["last"] = params.get("secret")
    return {"previous": previous}
''',
    "default": '''
def remember(value, seen=[]):
    previous = seen[-1] if seen else None
    seen.append(value)
    return previous


def run(params):
    return {"previous": remember(params.get("secret"))}
''',
    "nested": '''
TABLE = {"rows": [[]]}


def run(params):
    row = TABLE["rows"][0]
    previous = row[-1] if row else None
    row.append(params.get("secret"))
    return {"previous": previous}
''',
    "decimal": '''
import decimal


def run(params):
    previous = decimal.getcontext().prec
    decimal.setcontext(decimal.Context(prec=params["digits"]))
    return {"previous": previous}
''',
    "closure": '''
def make():
    seen = []

    def remember(value):
        previous = seen[-1] if seen else None
        seen.append(value)
        return previous

    return remember


REMEMBER = make()


def run(params):
    return {"previous": REMEMBER(params.get("secret"))}
''',
    "partial": '''
import functools

BOX = functools.partial(max, [])


def run(params):
    store = BOX.args[0]
    previous = store[-1] if store else None
    store.append(params.get("secret"))
    return {"previous": previous}
''',
    "dialect": '''
import csv


def run(params):
    previous = csv.get_dialect("excel").delimiter
    if "secret" in params:
        csv.register_dialect("excel", delimiter=";")
        return {"previous": None}
    return {"previous": None if previous == "," else previous}
''',
    "random_seed": '''
import random


def run(params):
    if "secret" in params:
        random.seed(params["secret"])
        return {"previous": None}
    return {"previous": random.random()}
''',
}


@pytest.mark.parametrize("name", sorted(STATEFUL))
def test_one_callers_state_never_reaches_the_next_caller(tool, policy, name):
    path = tool(STATEFUL[name], imports="")
    limits = SandboxLimits(timeout_s=10.0)
    with WorkerPool(path, module_name="state_v1", policy=policy, limits=limits, size=1) as pool:
        first = pool.call({"secret": 12345, "digits": 50})
        second = pool.call({"other": 1, "digits": 28})
        if name == "random_seed":
            import random

            random.seed(12345)
            assert second["previous"] != random.random()
        else:
            assert second["previous"] in (None, 28), (first, second)
        if name != "random_seed":
            assert pool.stats["replaced"] >= 1


def test_a_tool_without_state_keeps_its_warm_worker(tool, policy):
    path = tool('''
LIMITS = {"low": 1, "high": [1, 2, 3]}
PATTERN = re.compile("a+")


def run(params):
    scratch = [n * 2 for n in LIMITS["high"]]
    return {"n": len(PATTERN.findall(params["text"])) + len(scratch)}
''', imports="import re")
    with WorkerPool(path, module_name="state_v1", policy=policy, limits=SandboxLimits(timeout_s=10.0), size=1) as pool:
        for _ in range(5):
            assert pool.call({"text": "aa b aaa"}) == {"n": 5}
        assert pool.stats["started"] == 1
        assert pool.stats["replaced"] == 0


def test_allowed_members_caches_are_emptied_after_each_call(tool, policy):
    """`urlsplit.cache_info()` told whether an earlier caller had parsed a given URL."""
    path = tool('''
import urllib.parse


def run(params):
    if "secret" in params:
        urllib.parse.urlsplit(params["secret"])
        return {"seen": None}
    before = urllib.parse.urlsplit.cache_info().hits
    urllib.parse.urlsplit(params["guess"])
    return {"seen": urllib.parse.urlsplit.cache_info().hits > before}
''')
    with WorkerPool(path, module_name="state_v1", policy=policy,
                    limits=SandboxLimits(timeout_s=10.0), size=1) as pool:
        pool.call({"secret": "https://alice.example/token"})
        assert pool.call({"guess": "https://alice.example/token"}) == {"seen": False}


# The per-call check (`changed`) is laid out for speed; `changed_slowly` is the same rules one
# at a time. Each mutation below must give both the same answer (a binding deleted and added
# back is the one case where the fast check is stricter: it says "changed").
MODULE = '''
import collections
import decimal

LIMITS = {"low": 1, "high": [1, 2, 3]}
QUEUE = collections.deque([[1], [2]])
COUNTS = collections.Counter(a=1)
WORDS = ("a", "b")


def helper(value, seen=[]):
    return value


def make():
    cell = []

    def inner():
        return cell
    return inner


INNER = make()


def run(params):
    return {}
'''


def _mutations() -> dict[str, Callable[[dict[str, Any]], None]]:
    def set_defaults(ns: dict[str, Any]) -> None:
        ns["run"].__defaults__ = (1,)

    def set_kwdefaults(ns: dict[str, Any]) -> None:
        ns["run"].__kwdefaults__ = {"x": 1}

    def reorder(ns: dict[str, Any]) -> None:
        value = ns.pop("LIMITS")
        ns["LIMITS"] = value

    def swap_last(ns: dict[str, Any]) -> None:
        value = ns.pop("run")
        ns["other"] = value

    return {
        "nothing": lambda ns: None,
        "rebind to an equal list": lambda ns: ns.__setitem__("LIMITS", dict(ns["LIMITS"])),
        "new global": lambda ns: ns.__setitem__("NEW", 1),
        "deleted global": lambda ns: ns.pop("WORDS"),
        "nested list": lambda ns: ns["LIMITS"]["high"].append(4),
        "deque item": lambda ns: ns["QUEUE"][0].append(3),
        "counter": lambda ns: ns["COUNTS"].update(b=1),
        "mutable default": lambda ns: ns["helper"].__defaults__[0].append(1),
        "closure cell": lambda ns: ns["INNER"]().append(1),
        "defaults of a bare function": set_defaults,
        "keyword defaults of a bare function": set_kwdefaults,
        "decimal context": lambda ns: ns["decimal"].getcontext().__setattr__("prec", 7),
        "same binding deleted and added back": reorder,
        "last binding renamed": swap_last,
    }


@pytest.mark.parametrize("name", sorted(_mutations()))
def test_the_fast_state_check_answers_as_the_reference_does(name):
    import decimal

    from dyntools.sandbox.worker.guards import ModuleView
    from dyntools.sandbox.worker.state import ModuleState, static_kinds

    namespace: dict[str, Any] = {}
    exec(compile(MODULE, "<tool>", "exec"), namespace)
    context = decimal.getcontext()
    decimal.setcontext(decimal.Context())
    try:
        state = ModuleState(namespace, static_kinds(ModuleView))
        assert not state.changed() and not state.changed_slowly()
        _mutations()[name](namespace)
        fast, reference = state.changed(), state.changed_slowly()
    finally:
        decimal.setcontext(context)
    if name == "same binding deleted and added back":
        assert fast and not reference
    else:
        assert fast == reference == (name != "nothing")
