"""The runtime guards as functions (no tool code runs in the test process), and through a
worker for the import guard and escape routes."""

from __future__ import annotations

import functools
import json
import re
import sys

import pytest

from dyntools.errors import LoadError, SandboxViolation
from dyntools.gate.policy import parse_policy
from dyntools.sandbox import WorkerPool
from dyntools.sandbox.worker.guards import Guards, safe_builtins

from .conftest import only


class Stopped(Exception):
    pass


def stop(reason: str, message: str):
    raise Stopped(reason, message)


@pytest.fixture
def guards() -> Guards:
    g = Guards(
        stop=stop,
        denied_attributes=["format", "mro", "obj"],
        denied_prefixes=["f_", "gi_", "co_"],
        escape_objects=[("functools.wraps", functools.wraps)],
        max_output_bytes=20,
        denied_modules=["os"],
        real_import=__import__,
    )
    g.add_module("json", json, ["dumps", "loads", "decoder"])
    g.add_module("functools", functools, ["reduce", "wraps"])
    return g


@pytest.mark.parametrize("name", ["__class__", "_private", "format", "mro", "f_back",
                                  "gi_frame", "co_code"])
def test_getattr_refuses_names(guards, name):
    with pytest.raises(Stopped):
        guards.getattr_guard()("text", name)


def test_getattr_allows_plain_attributes(guards):
    getattr_ = guards.getattr_guard()
    assert getattr_("a,b", "split")(",") == ["a", "b"]
    with pytest.raises(AttributeError):
        getattr_([], "missing")


@pytest.mark.parametrize("value", [
    re,                       # a module
    sys._getframe(),          # a frame
    (lambda: 0).__code__,     # a code object
    functools.wraps,          # an escape route
    type,                     # a metaclass
    re.RegexFlag,             # a class made by a metaclass (Enum: a class factory)
])
def test_getattr_refuses_dangerous_values(guards, value):
    holder = type("Holder", (), {"value": value})
    with pytest.raises(Stopped):
        guards.getattr_guard()(holder, "value")


def test_write_guard_always_refuses(guards):
    with pytest.raises(Stopped):
        guards.write_guard()(object())


def test_import_guard_gives_views_with_allowed_members_only(guards):
    import_ = guards.import_guard()
    view = import_("json")
    assert view.dumps is json.dumps
    assert not hasattr(view, "JSONDecoder")
    assert not hasattr(view, "decoder")  # a submodule is never a member value here
    with pytest.raises(Stopped):
        import_("os")
    with pytest.raises(Stopped):
        import_("json", fromlist=("JSONDecoder",))
    with pytest.raises(Stopped):
        import_("json", level=1)
    # An escape route never enters a view, even when the policy lists it.
    with pytest.raises(Stopped):
        import_("functools", fromlist=("wraps",))
    assert import_("functools", fromlist=("reduce",)).reduce is functools.reduce


def test_imports_by_c_code_get_real_modules_except_denied_ones(guards):
    import_ = guards.import_guard()
    # What PyImport_Import passes when C code (datetime.strptime) imports a helper module:
    # the real module, for that C code; a denied one (or its submodule) still stops.
    assert import_("_strptime", {}, {}, [], 0) is sys.modules["_strptime"]
    assert not guards.failed
    with pytest.raises(Stopped):
        import_("os", {}, {}, [], 0)
    with pytest.raises(Stopped):
        import_("os.path", {}, {}, [], 0)
    # The import statement passes None or a tuple: the same name is then the tool's, refused.
    with pytest.raises(Stopped):
        import_("_strptime", {}, {}, None, 0)


def test_attributes_of_real_modules_are_refused(guards):
    with pytest.raises(Stopped):
        guards.getattr_guard()(json, "dumps")


def test_print_is_captured_and_capped(guards):
    print_ = guards.print_function()
    print_("hello", 1)
    assert guards.take_output() == "hello 1\n"
    with pytest.raises(Stopped):
        print_("x" * 30)
    with pytest.raises(Stopped):
        print_("to a file", file=sys.stderr)


def test_builtins_are_the_policy_names_only(guards, policy):
    table = safe_builtins(policy.builtins, guards)
    for name in ("open", "eval", "exec", "getattr", "type", "object", "__build_class__"):
        assert name not in table
    assert table["len"] is len


POLICY_WITH_ESCAPE = """
[limits]
max_bytes = 262144
max_nodes = 50000
max_depth = 100
[builtins]
allowed = ["len", "dict"]
[modules.functools]
members = ["reduce", "wraps"]
"""


def test_an_escape_route_the_policy_allows_is_still_refused(tool, limits):
    policy = parse_policy(POLICY_WITH_ESCAPE.encode())
    path = tool('''
        def run(params):
            return {"n": len(params)}
        ''', imports="from functools import wraps")
    with (WorkerPool(path, module_name="escape_v1", policy=policy, limits=limits) as pool,
          pytest.raises(SandboxViolation, match="not allowed")):
        pool.call({})


@pytest.mark.parametrize("body", [
    'return {"x": "{0.upper}".format("text")}',
    "gen = (x for x in [1])\n    return {'f': str(gen.gi_frame)}",
    "try:\n        1 / 0\n    except ZeroDivisionError as exc:\n"
    "        return {'t': str(exc.with_traceback(None))}",
    "return {'m': str(int.mro())}",
    "run.seen = True\n    del run.seen\n    return {}",
    "from json import decoder\n    return {}",
    "import os\n    return {}",
])
@pytest.mark.layer("restricted")
def test_layer_2_refuses_what_the_gate_would_have(tool, policy, limits, body):
    """Each body works when nothing stops it (the mutant without `restricted` shows it).
    Gate bypassed, layer 2 alone (no audit hook, no OS layer, each of which stops some of
    these on its own): refused at compile time (RestrictedPython's own list, e.g. `gi_frame`)
    or at run time by the guards, which end the call with sandbox_violation."""
    path = tool(f"def run(params):\n    {body}\n")
    with (pytest.raises((SandboxViolation, LoadError)),
          WorkerPool(path, module_name="guarded_v1", policy=policy, limits=limits,
                     _skip_layers=only("restricted"), allow_weaker_sandbox=True) as pool):
        pool.call({})
