"""Issue 9, findings 1, 10 and 11: the Python layer holds against allow-listed code, on its own.

Each attack below was a working step of a breach (or is the class it belonged to). The
`restricted` cases run with every other layer off (no audit hook, no OS layer): the
RestrictedPython policy, the guards and the hardened library members must stop it alone.
Where the audit hook is the second barrier for a step, it is shown alone too, with the
Python layer off (the tool then holds the real builtins).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from dyntools.errors import LoadError, SandboxError
from dyntools.sandbox import SandboxLimits
from dyntools.sandbox.pool import run_once
from tests.sandbox.conftest import only

PYTHON_ONLY = only("restricted")
AUDIT_ONLY = only("audit_hook")


def attempt(tool, policy, body: str, skip: frozenset[str], imports: str = "") -> dict:
    path = tool(body, imports=imports)
    try:
        return run_once(path, {}, policy=policy, limits=SandboxLimits(timeout_s=10.0),
                        _skip_layers=skip, allow_weaker_sandbox=True)
    except SandboxError as exc:
        return {"sandbox_error": exc.reason, "message": exc.message}


# -- finding 1: typing compiles strings, deepcopy's memo leaks internals ------------------

@pytest.mark.layer("restricted")
def test_typing_refuses_string_forward_references(tool, policy):
    outcome = attempt(tool, policy, '''
        def run(params):
            alias = typing.List["1 + 1"]
            return {"escaped": True}
        ''', PYTHON_ONLY, imports="import typing")
    assert outcome.get("sandbox_error") == "runtime_error", outcome
    assert "forward references" in outcome["message"]


def test_typing_string_compile_is_stopped_by_the_audit_hook_alone(tool, policy):
    outcome = attempt(tool, policy, '''
        def run(params):
            alias = typing.List["1 + 1"]
            return {"escaped": True}
        ''', AUDIT_ONLY, imports="import typing")
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome
    assert "compile" in outcome["message"]


@pytest.mark.layer("restricted")
def test_deepcopy_takes_no_memo(tool, policy):
    outcome = attempt(tool, policy, '''
        def run(params):
            memo = {}
            copy.deepcopy([1, 2], memo)
            return {"escaped": True, "memo": len(memo)}
        ''', PYTHON_ONLY, imports="import copy")
    assert outcome.get("sandbox_error") == "runtime_error", outcome
    assert "memo" in outcome["message"]


@pytest.mark.layer("restricted")
def test_copy_refuses_objects_that_are_not_data(tool, policy):
    """The real copy called the object's own __reduce_ex__ and then setattr by string."""
    outcome = attempt(tool, policy, '''
        def run(params):
            return {"copied": copy.copy(string.Template("$x")) is not None}
        ''', PYTHON_ONLY, imports="import copy\nimport string")
    assert outcome.get("sandbox_error") == "runtime_error", outcome


def test_copy_and_deepcopy_still_copy_data(tool, policy):
    outcome = attempt(tool, policy, '''
        def run(params):
            grid = [[1, 2], [3, 4]]
            deep = copy.deepcopy(grid)
            deep[0][0] = 9
            counts = copy.copy(collections.Counter("abca"))
            queue = copy.deepcopy(collections.deque([[1]], maxlen=3))
            cycle = [1]
            cycle.append(cycle)
            again = copy.deepcopy(cycle)
            return {"grid": grid, "deep": deep, "a": counts["a"],
                    "maxlen": queue.maxlen, "cycle": again[1] is again}
        ''', PYTHON_ONLY, imports="import collections\nimport copy")
    assert outcome == {"grid": [[1, 2], [3, 4]], "deep": [[9, 2], [3, 4]], "a": 2,
                       "maxlen": 3, "cycle": True}


@pytest.mark.layer("restricted")
def test_hash_of_identity_hashed_objects_is_refused(tool, policy):
    outcome = attempt(tool, policy, '''
        def helper():
            return 1

        def run(params):
            values = hash((1, "a", 2.5))
            return {"address": hash((1, helper))}
        ''', PYTHON_ONLY)
    assert outcome.get("sandbox_error") == "runtime_error", outcome
    assert "address" in outcome["message"]


# -- finding 10: a call returned `type`; ** keys were unchecked -----------------------------

@pytest.mark.layer("restricted")
def test_unbound_library_methods_are_refused(tool, policy):
    """`collections.UserList.copy(int)` returned `type` from a call."""
    outcome = attempt(tool, policy, '''
        def run(params):
            method = collections.UserList.copy
            return {"escaped": method(int) is not None}
        ''', PYTHON_ONLY, imports="import collections")
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome


@pytest.mark.layer("restricted")
def test_double_star_keys_are_checked_like_literal_keywords(tool, policy):
    outcome = attempt(tool, policy, '''
        def take(**options):
            return options

        def run(params):
            return take(**{"_root": True})
        ''', PYTHON_ONLY)
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome
    assert "_root" in outcome["message"]


@pytest.mark.layer("restricted")
def test_literal_underscore_keywords_are_refused_at_load(tool, policy):
    path = tool('''
        def take(**options):
            return options

        def run(params):
            return take(_root=True)
        ''')
    with pytest.raises(LoadError, match="_root"):
        run_once(path, {}, policy=policy, _skip_layers=PYTHON_ONLY, allow_weaker_sandbox=True)


# -- finding 11: writes that bypassed the write guard ---------------------------------------

@pytest.mark.layer("restricted")
@pytest.mark.parametrize("expression", [
    "random.Random.setstate",            # an unbound Python method takes a foreign self
    "calendar.Calendar.firstweekday",    # a property: its fset writes onto any object
    "csv.DictReader.fieldnames",         # another property
])
def test_unbound_methods_and_properties_are_refused(tool, policy, expression):
    outcome = attempt(tool, policy, f'''
        def run(params):
            handle = {expression}
            return {{"escaped": True}}
        ''', PYTHON_ONLY, imports="import calendar\nimport csv\nimport random")
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome


def test_bound_methods_of_library_objects_still_work(tool, policy):
    outcome = attempt(tool, policy, '''
        def run(params):
            rng = random.Random(7)
            rng.seed(7)
            first = rng.random()
            cal = calendar.Calendar(firstweekday=6)
            return {"same": first == random.Random(7).random(),
                    "first": cal.firstweekday, "days": len(list(cal.iterweekdays()))}
        ''', PYTHON_ONLY, imports="import calendar\nimport random")
    assert outcome == {"same": True, "first": 6, "days": 7}


def test_annotated_alias_call_writes_nothing_onto_the_result():
    """`typing.Annotated[g, 0]()` set `__orig_class__` on whatever g returned. Checked in a
    fresh interpreter: the patch changes that process's typing module."""
    code = textwrap.dedent('''
        import typing
        from dyntools.sandbox.worker.hardening import refuse_string_annotations

        def target():
            return 1

        def maker():
            return target

        refuse_string_annotations(typing)
        assert typing.Annotated[maker, 0]() is target
        assert not hasattr(target, "__orig_class__")
        try:
            typing.List["x"]
        except TypeError:
            print("refused")
    ''')
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "refused"


def test_function_attribute_writes_are_stopped_by_the_audit_hook_alone(tool, policy):
    """Both breaches ended in setattr(tool_function, "__code__", ...) by library code."""
    outcome = attempt(tool, policy, '''
        def victim(x=1):
            return x

        def run(params):
            write = getattr(object, "__setattr__")
            write(victim, "__defaults__", (2,))
            return {"escaped": victim()}
        ''', AUDIT_ONLY)
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome
    assert "object.__setattr__" in outcome["message"]


def test_compiling_a_string_is_stopped_by_the_audit_hook_alone(tool, policy):
    outcome = attempt(tool, policy, '''
        def run(params):
            code = compile("1 + 1", "<tool>", "eval")
            return {"escaped": True}
        ''', AUDIT_ONLY)
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome


# -- values out of containers and calls (the guards as functions) --------------------------

class Stopped(Exception):
    pass


def _stop(reason: str, message: str):
    raise Stopped(f"{reason}: {message}")


def _guards():
    import builtins as real_builtins

    from dyntools.sandbox.worker.guards import Guards, safe_builtins

    guards = Guards(stop=_stop, denied_attributes=[], denied_prefixes=[], escape_objects=[],
                    max_output_bytes=100, tool_globals={})
    safe_builtins(["len", "list", "int", "ValueError"], guards)
    assert real_builtins.len in guards.allowed
    return guards


def _forbidden_values() -> list[object]:
    import typing

    def closure():
        return forbidden

    forbidden = 1
    try:
        raise ValueError
    except ValueError as exc:
        trace = exc.__traceback__
    return [sys, closure.__code__, sys._getframe(), trace, closure.__closure__[0], type,
            type("Built", (), {}), typing.ForwardRef("x"), property(len),
            subprocess.run, sys.exit, type(sys).__dict__["__dict__"]]


@pytest.mark.parametrize("value", _forbidden_values(), ids=lambda v: type(v).__name__)
def test_items_calls_and_iteration_refuse_forbidden_values(value):
    guards = _guards()
    guards.forbid_type(__import__("typing").ForwardRef)
    names = guards.guard_names()
    with pytest.raises(Stopped):
        names["_getitem_"]({"key": value}, "key")
    with pytest.raises(Stopped):
        list(names["_getiter_"]([1, value]))
    with pytest.raises(Stopped):
        list(names["_getiter_"]([(1, (2, value))], 2))
    with pytest.raises(Stopped):
        names["_call_"](lambda: value)
    with pytest.raises(Stopped):
        names["_args_"](1, (value,))


def test_allowed_values_pass_the_guards():
    guards = _guards()
    names = guards.guard_names()
    assert names["_getitem_"]({"f": len}, "f") is len
    assert list(names["_getiter_"]([(1, [2, list]), (3, [4, int])], 2))[1][1][1] is int
    assert names["_call_"](int, "7") == 7
    assert names["_call_"](lambda: ValueError) is ValueError


def test_a_stale_import_lock_does_not_count_as_an_import():
    """The audit hook and the typing patch let strings compile only while an import runs.
    A lock entry kept alive after its import ended (a failed import's traceback held by the
    tool) must not count."""
    import _frozen_importlib as bootstrap
    import weakref

    from dyntools.sandbox.worker.audit import importing

    lock = bootstrap._ModuleLock("stale_module_for_the_test")
    bootstrap._module_locks["stale_module_for_the_test"] = weakref.ref(lock)
    try:
        assert not importing()
        lock.acquire()
        try:
            assert importing()
        finally:
            lock.release()
        assert not importing()
    finally:
        del bootstrap._module_locks["stale_module_for_the_test"]


# -- found by our own attack on this layer ---------------------------------------------------

@pytest.mark.layer("restricted")
def test_a_container_filled_through_a_bound_method_is_guarded(tool, policy):
    """`put = box.append` handed library values to `box`; `box[0][1]` was read unguarded."""
    outcome = attempt(tool, policy, '''
        def run(params):
            box = []
            put = box.append
            put(typing.get_args(typing.Optional[int]))
            none_type = box[0][1]
            return {"escaped": True}
        ''', PYTHON_ONLY, imports="import typing")
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome


@pytest.mark.layer("restricted")
@pytest.mark.parametrize("body", [
    # A slice holds any object: its fields were read back with no check.
    'held = slice(*typing.get_args(typing.Optional[int])).stop',
    # `f(*items)` took values out of a library's container unchecked (NoneType sorts first).
    'held = min(*typing.get_args(typing.Optional[int]), key=str)',
    # A class built at run time, called through map and read back through a slice.
    'held = slice(*map(csv.Sniffer().sniff, ["a,b,c\\n1,2,3\\n"])).stop',
])
def test_star_arguments_and_slice_fields_are_checked(tool, policy, body):
    """Each payload works on its own (the mutant with the layer off returns the class it
    held); the Python layer ends the call as a violation, not as an error of the payload."""
    outcome = attempt(tool, policy, f'''
        def run(params):
            {body}
            return {{"escaped": str(held)}}
        ''', PYTHON_ONLY, imports="import csv\nimport typing")
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome
