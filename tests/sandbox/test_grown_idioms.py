"""Issue 27 in the sandbox: each construct the gate now accepts, attacked with the gate off.

Accepting more must never let an attack through: for every new surface the layers behind
the gate hold on their own. The Python-layer cases run with every OS layer off (the
RestrictedPython policy, the guards and the audit hook alone); the state cases go through a
real warm pool, where a second caller must never see what a first one left behind.
"""

from __future__ import annotations

import pytest

from dyntools.errors import LoadError, SandboxError
from dyntools.gate import check_source
from dyntools.sandbox import SandboxLimits, WorkerPool
from dyntools.sandbox.pool import run_once
from tests.sandbox.conftest import only

PYTHON_ONLY = only("restricted", "audit_hook")
RESTRICTED_ONLY = only("restricted")


def attempt(tool, policy, body: str, skip: frozenset[str], imports: str = "") -> dict:
    path = tool(body, imports=imports)
    try:
        return run_once(path, {}, policy=policy, limits=SandboxLimits(timeout_s=10.0),
                        _skip_layers=skip, allow_weaker_sandbox=True)
    except SandboxError as exc:
        return {"sandbox_error": exc.reason, "message": exc.message}


# -- a guard shadowed: refused before any tool code runs -------------------------------------

SHADOWED_GUARDS = {
    "parameter": '''
        def lookup(obj, _getattr_):
            return obj.real

        def run(params):
            return {"x": lookup(1, lambda o, n: o)}
        ''',
    "comprehension variable": '''
        def run(params):
            return {"x": [_getiter_ for _getiter_ in [1, 2]]}
        ''',
    "except as": '''
        def run(params):
            try:
                raise ValueError("x")
            except ValueError as _getattr_:
                return {"x": (1).real}
        ''',
    "import alias": '''
        import json as _getattr_

        def run(params):
            return {"x": (1).real}
        ''',
    "global": '''
        def run(params):
            global _write_
            _write_ = len
            return {}
        ''',
}


@pytest.mark.parametrize("site", sorted(SHADOWED_GUARDS))
def test_a_guard_shadowed_anywhere_is_refused_at_load_with_the_gate_off(tool, policy, site):
    path = tool(SHADOWED_GUARDS[site])
    assert not check_source(path.read_bytes()).accepted  # the gate's verdict, for the record
    with pytest.raises(LoadError, match="refused by the restricted-code policy"):
        run_once(path, {}, policy=policy, limits=SandboxLimits(timeout_s=10.0),
                 _skip_layers=RESTRICTED_ONLY, allow_weaker_sandbox=True)


# -- register on an ABC, by every route --------------------------------------------------------

REGISTER_ROUTES = {
    "from-import": ("from collections.abc import Iterable",
                    "Iterable.register(int)\n    return {'x': isinstance(1, Iterable)}"),
    "alias": ("from collections.abc import Iterable",
              "r = Iterable\n    r.register(int)\n    return {'x': isinstance(1, Iterable)}"),
    "dotted": ("import collections.abc",
               "collections.abc.Sized.register(int)\n"
               "    return {'x': isinstance(1, collections.abc.Sized)}"),
    "module alias": ("from collections import abc",
                     "abc.Container.register(int)\n    return {'x': isinstance(1, abc.Container)}"),
    "through a container": ("from collections.abc import Iterable",
                            "kinds = {'k': Iterable}\n    kinds['k'].register(int)\n"
                            "    return {'x': isinstance(1, Iterable)}"),
    "typing alias": ("import typing",
                     "typing.Iterable.register(int)\n    return {'x': True}"),
    "an ABC subclass": ("import collections",
                        "collections.UserDict.register(int)\n    return {'x': True}"),
    "a default argument": ("from collections.abc import Iterable\n\n\n"
                           "def kind(k=Iterable):\n    return k\n",
                           "kind().register(int)\n    return {'x': isinstance(1, Iterable)}"),
    "a memoised helper's answer": ("import functools\nfrom collections.abc import Iterable\n\n\n"
                                   "@functools.cache\ndef kind():\n    return Iterable\n",
                                   "kind().register(int)\n"
                                   "    return {'x': isinstance(1, Iterable)}"),
}


@pytest.mark.parametrize("route", sorted(REGISTER_ROUTES))
def test_register_on_an_abc_is_refused_by_the_python_layer_alone(tool, policy, route):
    imports, body = REGISTER_ROUTES[route]
    outcome = attempt(tool, policy, f"def run(params):\n    {body}\n", PYTHON_ONLY,
                      imports=imports)
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome


# -- decorators that are not functools' memoisation ones ---------------------------------------

@pytest.mark.parametrize(("imports", "decorator"), [
    ("import functools", "@functools.wraps(len)"),
    ("import functools", "@functools.singledispatch"),
    ("import typing", "@typing.final"),
    ("", "@staticmethod"),
])
def test_a_decorator_that_is_not_allowed_gets_nothing_with_the_gate_off(tool, policy, imports,
                                                                       decorator):
    outcome = attempt(tool, policy, f'''
{decorator}
def helper(x):
    return x


def run(params):
    return {{"x": helper(1)}}
''', PYTHON_ONLY, imports=imports)
    assert outcome.get("sandbox_error") in ("sandbox_violation", "runtime_error"), outcome


# -- module-level names never carry one caller's data to the next ------------------------------

CARRIERS = {
    "underscore list": '''
_seen = []


def run(params):
    previous = _seen[-1] if _seen else None
    _seen.append(params.get("secret"))
    return {"previous": previous}
''',
    "underscore dict": '''
_cache = {}


def run(params):
    previous = _cache.get("last")
    _cache["last"] = params.get("secret")
    return {"previous": previous}
''',
    "lowercase table": '''
seen = {"rows": []}


def run(params):
    rows = seen["rows"]
    previous = rows[-1] if rows else None
    rows.append(params.get("secret"))
    return {"previous": previous}
''',
    "global rebound": '''
last = None


def run(params):
    global last
    previous = last
    last = params.get("secret")
    return {"previous": previous}
''',
    "underscore global rebound": '''
_last = None


def run(params):
    global _last
    previous = _last
    _last = params.get("secret")
    return {"previous": previous}
''',
    "module-level lru_cache": '''
import functools


@functools.lru_cache(maxsize=None)
def square(n):
    return n * n


def run(params):
    if "secret" in params:
        square(params["secret"])
        return {"previous": None}
    return {"previous": square.cache_info().currsize or None}
''',
}
@pytest.mark.parametrize("name", sorted(CARRIERS))
def test_a_second_caller_never_sees_the_first_callers_data(tool, policy, name):
    path = tool(CARRIERS[name])
    assert check_source(path.read_bytes()).accepted
    with WorkerPool(path, module_name="carrier_v1", policy=policy,
                    limits=SandboxLimits(timeout_s=10.0), size=1) as pool:
        pool.call({"secret": 12345})
        assert pool.call({}) == {"previous": None}


# -- the worker's side of the new rules, with the gate off ----------------------------------

def policy_without_register_denial(tmp_path):
    """A custom allow-list that forgot to deny `register` by name."""
    from dyntools.gate.policy import default_allowlist_path, load_policy

    text = default_allowlist_path().read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if not line.startswith("register = ")]
    path = tmp_path / "allowlist.toml"
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    policy = load_policy(path)
    assert "register" not in policy.denied_attributes
    return policy


@pytest.mark.parametrize("route", sorted(REGISTER_ROUTES))
def test_register_on_an_abc_is_refused_by_the_object_whatever_the_policy(tool, tmp_path, route):
    imports, body = REGISTER_ROUTES[route]
    outcome = attempt(tool, policy_without_register_denial(tmp_path),
                      f"def run(params):\n    {body}\n", PYTHON_ONLY, imports=imports)
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome
    assert "ABC" in outcome["message"] or "import of" in outcome["message"], outcome


def test_register_of_something_that_is_no_abc_is_left_to_the_policy(tool, tmp_path):
    """The object rule is about ABCs: `csv.register_dialect` and a dict key `register` are
    untouched (a custom policy decides about the name)."""
    outcome = attempt(tool, policy_without_register_denial(tmp_path), '''
def run(params):
    table = {"register": 1}
    csv.register_dialect("pipes", delimiter="|")
    return {"x": table["register"], "d": csv.get_dialect("pipes").delimiter}
''', PYTHON_ONLY, imports="import csv")
    assert outcome == {"x": 1, "d": "|"}, outcome


@pytest.mark.parametrize("attribute", ["join", "task_done", "queue", "maxsize", "mutex",
                                       "not_empty", "unfinished_tasks"])
def test_a_queue_exposes_only_its_queue_methods(tool, policy, attribute):
    outcome = attempt(tool, policy, f'''
def run(params):
    pending = queue.Queue()
    pending.put(1)
    return {{"x": repr(pending.{attribute})}}
''', PYTHON_ONLY, imports="import queue")
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome


def test_a_queue_works_through_its_methods(tool, policy):
    outcome = attempt(tool, policy, '''
def run(params):
    pending = queue.Queue(maxsize=2)
    pending.put(1)
    pending.put_nowait(2)
    full = pending.full()
    try:
        pending.put_nowait(3)
    except queue.Full:
        overflow = True
    first, second = pending.get(), pending.get_nowait()
    try:
        pending.get_nowait()
    except queue.Empty:
        drained = pending.empty() and pending.qsize() == 0
    return {"x": [first, second, full, overflow, drained]}
''', PYTHON_ONLY, imports="import queue")
    assert outcome == {"x": [1, 2, True, True, True]}, outcome


@pytest.mark.parametrize(("imports", "body", "expected"), [
    ("import urllib", "return {'x': urllib.parse.quote('a b')}", {"x": "a%20b"}),
    ("from urllib import parse", "return {'x': parse.unquote('a%20b')}", {"x": "a b"}),
    ("from collections import abc", "return {'x': isinstance([], abc.Sequence)}", {"x": True}),
    ("import urllib", "return {'x': repr(urllib.request)}", "runtime_error"),
    ("from urllib import request", "return {}", "sandbox_violation"),
    ("import urllib.request", "return {}", "sandbox_violation"),
    ("from collections import namedtuple", "return {}", "sandbox_violation"),
])
def test_a_package_view_holds_only_its_allowed_submodules(tool, policy, imports, body, expected):
    outcome = attempt(tool, policy, f"def run(params):\n    {body}\n", PYTHON_ONLY,
                      imports=imports)
    if isinstance(expected, dict):
        assert outcome == expected
    else:
        assert outcome.get("sandbox_error") == expected, outcome


def test_type_compares_as_python_does_and_is_nothing_else(tool, policy):
    outcome = attempt(tool, policy, '''
def helper():
    return 1


def run(params):
    moment = datetime.date(2024, 1, 2)
    return {"x": [type(1) == int, type(True) is int, type(True) is bool,
                  type(1.5) in (int, float), type("a") not in (int, float),
                  type(moment) == int, type(helper) is int, type(None) != dict]}
''', PYTHON_ONLY, imports="import datetime")
    assert outcome == {"x": [True, False, True, True, True, False, False, True]}, outcome
    bare = attempt(tool, policy, "def run(params):\n    kind = type(params)\n    return {}\n",
                   PYTHON_ONLY)
    assert bare.get("sandbox_error") == "runtime_error" and "type" in bare["message"], bare


def test_the_type_guard_hands_out_no_class_a_tool_may_not_hold():
    from dyntools.sandbox.worker.guards import ForeignType, Guards

    def stop(reason: str, message: str) -> None:
        raise AssertionError(reason, message)

    guards = Guards(stop=stop, denied_attributes=[], denied_prefixes=[], escape_objects=[],
                    max_output_bytes=100)
    type_of = guards.type_guard()
    assert [type_of(1), type_of("a"), type_of(None), type_of([])] == [int, str, type(None), list]
    assert type_of(object()) is ForeignType  # `object` is not a class a tool may hold
    assert type_of(guards) is ForeignType
    assert type_of(len) is ForeignType


def test_a_memoised_helper_keeps_its_warm_worker_and_forgets_each_call(tool, policy):
    path = tool(CARRIERS["module-level lru_cache"])
    with WorkerPool(path, module_name="memo_v1", policy=policy,
                    limits=SandboxLimits(timeout_s=10.0), size=1) as pool:
        for _ in range(3):
            pool.call({"secret": 7})
            assert pool.call({}) == {"previous": None}
        assert pool.stats["started"] == 1 and pool.stats["replaced"] == 0, pool.stats
