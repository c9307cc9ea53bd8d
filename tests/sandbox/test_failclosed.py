"""Issue 26, finding 2: every hook and guard fails closed.

The audit hook cleared its "inside tool" flag, called its judge, and set the flag back only
when the judge returned: a tool that recursed to the edge of the stack and opened a time-zone
file there made the judge raise RecursionError, caught it, and ran the rest of the call with
the tripwire off. Now the hook marks the call tripped before anything that can fail, restores
the flag in `finally`, lets an exception inside the judge refuse the event, and the worker
ends after a tripped call. Every guard is held to the same rule: an error inside a check
refuses the checked operation (it never hands the value over) and spends the worker.

Each guard is tested here with the error induced inside it: recursion to the edge of the
stack, one depth after another, then the guarded operation (somewhere in that span the guard
starts but its check cannot finish), and a MemoryError where one can be raised on purpose.
"""

from __future__ import annotations

import json
import string
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from dyntools.errors import SandboxError
from dyntools.sandbox import SandboxLimits
from dyntools.sandbox.pool import run_once
from dyntools.sandbox.testing import run_unchecked
from dyntools.sandbox.worker.audit import _protected_write
from dyntools.sandbox.worker.guards import Guards, safe_builtins
from dyntools.sandbox.worker.hardening import DataCopier, safe_hash
from tests.sandbox.conftest import only
from tests.support.fresh import fresh_stdout

FORBIDDEN = sys  # a module: no guard may ever hand it to a tool


class Stopped(Exception):
    pass


def _stop(reason: str, message: str) -> Any:
    raise Stopped(f"{reason}: {message}")


def at_the_edge(attempt: Callable[[], Any], span: int = 150) -> list[tuple[str, Any]]:
    """Run `attempt` with 0, 1, ... `span` frames to spare before the recursion limit; what
    each run returned ("value") or raised ("raised")."""

    def deepest(depth: int) -> int:
        try:
            return deepest(depth + 1)
        except RecursionError:
            return depth

    def descend(depth: int, target: int) -> tuple[str, Any]:
        if depth < target:
            return descend(depth + 1, target)
        try:
            return ("value", attempt())
        except BaseException as exc:  # a guard refuses by any exception
            return ("raised", exc)

    limit = deepest(0)
    outcomes: list[tuple[str, Any]] = []
    for back in range(span):
        try:
            outcomes.append(descend(0, limit - back))
        except RecursionError as exc:
            outcomes.append(("raised", exc))
    return outcomes


def assert_refused_everywhere(outcomes: list[tuple[str, Any]]) -> None:
    """The operation never succeeded; some runs were stopped as usual, some met the edge."""
    assert [o for o in outcomes if o[0] == "value"] == [], "a run got past the guard"
    raised = {type(o[1]) for o in outcomes}
    assert Stopped in raised and RecursionError in raised, raised


@pytest.fixture
def guards() -> Guards:
    import json as json_module

    made = Guards(stop=_stop, denied_attributes=["format"], denied_prefixes=["f_"],
                  escape_objects=[], max_output_bytes=20, denied_modules=["os"],
                  real_import=__import__, tool_globals={})
    made.add_module("json", json_module, ["dumps"])
    safe_builtins(["len", "list"], made)
    return made


class Holder:
    """An object whose attribute holds what a tool must never get."""

    def __init__(self, value: Any) -> None:
        self.inside = value


# -- each guard at the edge of the stack -----------------------------------------------------

def _guarded_operations(guards: Guards) -> dict[str, Callable[[], Any]]:
    names = guards.guard_names()
    builtins_table = safe_builtins(["len"], guards)
    real_print = builtins_table["print"]
    importer = builtins_table["__import__"]

    def overprint() -> Any:
        real_print("x" * 40)
        return guards.output  # never reached: the output cap refuses the text

    return {
        "_getattr_": lambda: names["_getattr_"](Holder(FORBIDDEN), "inside"),
        "_getattr_ name": lambda: names["_getattr_"](Holder(1), "f_back"),
        "_getitem_": lambda: names["_getitem_"]({"key": FORBIDDEN}, "key"),
        "_getiter_": lambda: list(names["_getiter_"]([1, FORBIDDEN])),
        "_getiter_ nested": lambda: list(names["_getiter_"]([(1, (2, FORBIDDEN))], 2)),
        "_call_": lambda: names["_call_"](lambda: FORBIDDEN),
        "_apply_": lambda: names["_apply_"](dict, **{"_hidden": 1}),
        "_apply_ value": lambda: names["_apply_"](len, FORBIDDEN),
        "_args_": lambda: names["_args_"](1, (FORBIDDEN,)),
        "_write_": lambda: names["_write_"](Holder(1)),
        "__import__": lambda: importer("os"),
        "__import__ member": lambda: importer("json", None, None, ("loads",), 0),
        "print file": lambda: real_print("x", file=object()),
        "print over the cap": overprint,
    }


@pytest.mark.parametrize("operation", sorted(_guarded_operations(Guards(
    stop=_stop, denied_attributes=[], denied_prefixes=[], escape_objects=[],
    max_output_bytes=1))))
def test_a_guard_at_the_edge_of_the_stack_never_lets_the_operation_through(guards, operation):
    attempt = _guarded_operations(guards)[operation]
    with pytest.raises(Stopped):
        attempt()  # with room to spare: refused as usual
    guards.failed = False
    outcomes = at_the_edge(attempt)
    assert_refused_everywhere(outcomes)
    assert guards.failed, "an error inside the check did not spend the worker"
    assert "".join(guards.output) == "", "refused output was kept"


def test_an_allowed_operation_at_the_edge_is_the_tools_own_error(guards):
    """A guard whose check passes hands the value over; an error of the operation itself
    (a missing attribute) is the tool's and spends nothing."""
    names = guards.guard_names()
    assert names["_getattr_"](Holder(7), "inside") == 7
    with pytest.raises(AttributeError):
        names["_getattr_"](Holder(7), "missing")
    assert names["_getitem_"]({"k": [1]}, "k") == [1]
    assert not guards.failed


class _Exploding(type):
    """A metaclass whose hash raises MemoryError: a class of it makes the allowed-set
    lookup inside a check fail."""

    def __hash__(cls) -> int:
        raise MemoryError

    __eq__ = type.__eq__


def test_a_memory_error_inside_a_check_refuses_the_operation(guards):
    names = guards.guard_names()
    made = _Exploding("Made", (), {})
    called: list[int] = []

    def callee() -> Any:
        called.append(1)
        return made

    with pytest.raises(MemoryError):
        names["_call_"](made)  # a class as the callee: checked before the call
    with pytest.raises(MemoryError):
        names["_call_"](callee)  # the result: checked before it is handed over
    assert called == [1]
    with pytest.raises(MemoryError):
        names["_getattr_"](Holder(made), "inside")
    with pytest.raises(MemoryError):
        names["_getitem_"]([made], 0)
    assert guards.failed


def test_hash_and_copy_at_the_edge_never_answer_for_what_they_refuse():
    copy, deepcopy = DataCopier().functions()
    for attempt in (lambda: safe_hash((1, [].append)), lambda: deepcopy([string.Template("x")]),
                    lambda: copy(string.Template("x"))):
        outcomes = at_the_edge(attempt)
        assert [o for o in outcomes if o[0] == "value"] == []
        assert {type(o[1]) for o in outcomes} <= {TypeError, RecursionError}


def test_hash_answers_only_for_values():
    """A built-in method's hash mixes in the address of the object it is bound to."""
    import datetime
    import decimal

    for value in (1, "a", b"x", 2.5, (1, ("a", frozenset({3}))), decimal.Decimal("1.5"),
                  datetime.date(2024, 1, 2), range(3), True):
        assert safe_hash(value) == hash(value)
    for value in ([].append, len, str.upper, None, object(), Holder(1), (1, len)):
        with pytest.raises(TypeError):
            safe_hash(value)
    with pytest.raises(TypeError, match="unhashable"):
        safe_hash([1])


# -- the audit hook, in a fresh interpreter (an audit hook cannot be removed) -----------------

HOOK_PROBE = textwrap.dedent('''
    import gc
    import json
    import os
    import sys
    import tempfile

    from dyntools.sandbox.worker import audit
    from dyntools.sandbox.worker.audit import AuditTripwire

    class Stopped(Exception):
        pass

    def stop(reason, message):
        raise Stopped(message)

    def stop_that_fails(reason, message):
        raise RecursionError("stop could not run")

    wire = AuditTripwire(stop)
    wire.install()
    folder = tempfile.mkdtemp()
    readable = os.path.join(folder, "readable")
    with open(readable, "w") as handle:
        handle.write("data")
    written = os.path.join(folder, "written")
    results = {}

    def reset():
        wire.inside_tool = False
        wire.tripped = False
        wire.violation = None
        wire.stop = stop

    def deepest(depth):
        try:
            return deepest(depth + 1)
        except RecursionError:
            return depth

    def descend(depth, target, attempt):
        if depth < target:
            return descend(depth + 1, target, attempt)
        try:
            attempt()
            return "done"
        except BaseException as exc:
            return type(exc).__name__

    def write_file():
        with open(written, "w") as handle:
            handle.write("escaped")

    def read_file():
        with open(readable) as handle:
            return handle.read()

    # A clean judged event (a read) leaves the call untripped.
    reset()
    wire.inside_tool = True
    read_file()
    results["read"] = [wire.tripped, wire.inside_tool]

    # At the edge of the stack: a write is refused at every depth; the flag is always back on.
    reset()
    limit = deepest(0)
    outcomes = set()
    flags = set()
    for back in range(150):
        wire.inside_tool = True
        try:
            outcomes.add(descend(0, limit - back, write_file))
        except RecursionError:
            outcomes.add("RecursionError")
        flags.add(wire.inside_tool)
    results["edge"] = [sorted(outcomes), sorted(flags), wire.tripped, os.path.exists(written)]

    # The same for a read (the zoneinfo case): refused where the judge cannot finish, and the
    # call stays tripped even though later reads are judged clean.
    reset()
    outcomes = set()
    for back in range(150):
        wire.inside_tool = True
        try:
            outcomes.add(descend(0, limit - back, read_file))
        except RecursionError:
            outcomes.add("RecursionError")
    wire.inside_tool = True
    read_file()
    results["edge_read"] = [sorted(outcomes), wire.tripped, wire.inside_tool, wire.violation]

    # A judge that raises MemoryError refuses the event.
    reset()
    real_importing = audit.importing

    def exploding():
        raise MemoryError

    audit.importing = exploding
    wire.inside_tool = True
    try:
        compile("6 * 7", "<tool>", "eval")
        results["judge_memory"] = ["compiled"]
    except MemoryError:
        results["judge_memory"] = ["refused", wire.tripped, wire.inside_tool, wire.violation]
    audit.importing = real_importing

    # A stop event whose stop cannot run: refused, tripped, and named as a violation.
    reset()
    wire.stop = stop_that_fails
    wire.inside_tool = True
    try:
        objects = gc.get_objects()
        results["stop_fails"] = ["listed", len(objects)]
    except RecursionError:
        results["stop_fails"] = ["refused", wire.tripped, wire.inside_tool, wire.violation]

    # A file name proves nothing: compile(..., "x.py") and exec of what it made are refused.
    reset()
    wire.inside_tool = True
    try:
        compile("6 * 7", "x.py", "eval")
        results["named_py"] = "compiled"
    except Stopped as exc:
        results["named_py"] = str(exc)
    reset()
    code = compile("VALUE = 6 * 7", "tool.py", "exec")
    wire.inside_tool = True
    try:
        exec(code, {})
        results["exec_other"] = "ran"
    except Stopped as exc:
        results["exec_other"] = str(exc)
    reset()
    wire.tool_code = code
    wire.inside_tool = True
    namespace = {}
    exec(code, namespace)
    results["exec_tool"] = namespace["VALUE"]
    print(json.dumps(results))
''')


@pytest.fixture(scope="module")
def hook_results() -> dict[str, Any]:
    return dict(json.loads(fresh_stdout(HOOK_PROBE)))


def test_a_clean_judged_event_leaves_the_call_untripped(hook_results):
    assert hook_results["read"] == [False, True]


def test_the_hook_at_the_edge_of_the_stack_refuses_and_keeps_the_wire_on(hook_results):
    outcomes, flags, tripped, written = hook_results["edge"]
    assert not written, "a file was written past the hook"
    assert "done" not in outcomes
    assert {"Stopped", "RecursionError"} <= set(outcomes)
    assert flags == [True], "the wire was left off"
    assert tripped


def test_a_judge_that_cannot_finish_trips_the_call_for_good(hook_results):
    outcomes, tripped, inside, violation = hook_results["edge_read"]
    assert "RecursionError" in outcomes and "done" in outcomes
    assert tripped and inside and violation is None


def test_a_judge_that_raises_memory_error_refuses_the_event(hook_results):
    assert hook_results["judge_memory"] == ["refused", True, True, None]


def test_a_stop_that_cannot_run_leaves_a_violation(hook_results):
    assert hook_results["stop_fails"] == ["refused", True, True, "gc.get_objects"]


def test_a_file_name_does_not_make_a_string_code(hook_results):
    assert "'compile'" in hook_results["named_py"]
    assert "'exec'" in hook_results["exec_other"]
    assert hook_results["exec_tool"] == 42


def test_a_protected_write_by_a_name_that_is_not_a_plain_string_is_refused():
    class Name(str):
        pass

    assert _protected_write((Holder(1), Name("inside"), 1))
    assert not _protected_write((Holder(1), "inside", 1))
    assert _protected_write((Holder(1), "__class__", 1))


TYPING_PROBE = textwrap.dedent('''
    import json
    import typing

    from dyntools.sandbox.worker.hardening import refuse_string_annotations

    refuse_string_annotations(typing)

    def deepest(depth):
        try:
            return deepest(depth + 1)
        except RecursionError:
            return depth

    def descend(depth, target):
        if depth < target:
            return descend(depth + 1, target)
        try:
            typing.List["int"]
            return "compiled"
        except BaseException as exc:
            return type(exc).__name__

    limit = deepest(0)
    outcomes = set()
    for back in range(150):
        try:
            outcomes.add(descend(0, limit - back))
        except RecursionError:
            outcomes.add("RecursionError")
    print(json.dumps(sorted(outcomes)))
''')


def test_typing_at_the_edge_never_compiles_a_string():
    outcomes = json.loads(fresh_stdout(TYPING_PROBE))
    assert "compiled" not in outcomes
    assert "TypeError" in outcomes


# -- finding 2 through the public path -------------------------------------------------------

# The red team's steps after the tripwire was off (the Python layer's guards off, so the tool
# holds the real builtins and modules): only the audit hook stands between it and each step.
EDGE_ATTACK = '''
import gc
import sys
import zoneinfo


def probe(depth, target):
    if depth < target:
        return probe(depth + 1, target)
    try:
        zoneinfo.ZoneInfo.no_cache("UTC")
        return "opened"
    except RecursionError:
        return "recursion"


def deepest(depth=0):
    try:
        return deepest(depth + 1)
    except RecursionError:
        return depth


def victim():
    return "original"


def run(params):
    limit = deepest()
    for back in range(200):
        try:
            probe(0, limit - back)
        except RecursionError:
            pass
    step = params["step"]
    if step == "compile":
        return {"escaped": eval(compile("6 * 7", "<attack>", "eval"))}
    if step == "code":
        victim.__code__ = (lambda: "replaced").__code__
        return {"escaped": victim()}
    if step == "frames":
        return {"escaped": len(sys._current_frames())}
    return {"escaped": len(gc.get_objects())}
'''


@pytest.mark.parametrize("step", ["compile", "code", "frames", "objects"])
def test_finding_2_the_audit_hook_alone_holds_after_a_judge_failed_at_the_edge(
        tool, step):
    path = tool(EDGE_ATTACK)
    outcome = run_unchecked(path, {"step": step}, disable=only("audit_hook"),
                            limits=SandboxLimits(timeout_s=20.0))
    assert outcome["reason"] == "sandbox_violation", outcome
    assert outcome["result"] is None


GUARD_AT_THE_EDGE = '''
def probe(depth, target):
    if depth < target:
        return probe(depth + 1, target)
    try:
        return typing.get_args(typing.Optional[int])[1]
    except RecursionError:
        return None


def deepest(depth):
    try:
        return deepest(depth + 1)
    except RecursionError:
        return depth


def run(params):
    limit = deepest(0)
    for back in range(200):
        try:
            held = probe(0, limit - back)
        except RecursionError:
            held = None
        if held is not None:
            return {"escaped": True}
    return {"escaped": False}
'''


def test_a_runtime_guard_at_the_edge_in_a_real_worker_never_hands_the_value_over(tool, policy):
    """`typing.get_args(...)[1]` is NoneType, a class no tool may hold: `_getitem_` refuses
    it. At the edge of the stack its stop cannot run; the value still never comes back."""
    path = tool(GUARD_AT_THE_EDGE, imports="import typing")
    with pytest.raises(SandboxError) as caught:
        run_once(path, {}, policy=policy, limits=SandboxLimits(timeout_s=20.0),
                 _skip_layers=only("restricted", "audit_hook"), allow_weaker_sandbox=True)
    assert caught.value.reason == "sandbox_violation"
