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
# The state check skips module globals whose names start with an underscore ("tools cannot
# bind them"); issue 26's rewrite (branch failclosed-worker) skips only the worker's own names.
NEEDS_ISSUE_26 = {"underscore list", "underscore dict"}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(
        strict=True, reason="the state check still skips _names (issue 26, failclosed-worker)"))
    if name in NEEDS_ISSUE_26 else name
    for name in sorted(CARRIERS)
])
def test_a_second_caller_never_sees_the_first_callers_data(tool, policy, name):
    path = tool(CARRIERS[name])
    assert check_source(path.read_bytes()).accepted
    with WorkerPool(path, module_name="carrier_v1", policy=policy,
                    limits=SandboxLimits(timeout_s=10.0), size=1) as pool:
        pool.call({"secret": 12345})
        assert pool.call({}) == {"previous": None}
