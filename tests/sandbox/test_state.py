"""Issue 9, finding 12: a warm worker never carries one caller's data into another's call.

A call that changes the tool's module state (a module-level cache, a mutable default, a
rebound global, process-wide library state) spends its worker: the reply says so, the worker
ends, and the next call gets a fresh one. A tool that keeps no state keeps its warm worker.
"""

from __future__ import annotations

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
