"""Issue 9, finding 12 and issue 26, finding 1: a warm worker never carries one caller's data
into another's call.

A call that changes the tool's module state (a module-level cache, a mutable default, a
rebound global, the object behind a bound method, process-wide library state) spends its
worker: the reply says so, the worker ends, and the next call gets a fresh one. A tool that
holds something the check does not understand spends its worker on every call. A tool that
keeps no state keeps its warm worker.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dyntools.generators.file import FileGenerator
from dyntools.pipeline.dyntools import Dyntools
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
    # issue 26, finding 1: the object bound to a built-in method was never compared
    "bound_method": '''
def log(entry, remember={}.setdefault):
    seen = remember("seen", [])
    previous = seen[-1] if seen else None
    seen.append(entry)
    return previous


def run(params):
    return {"previous": log(params.get("secret"))}
''',
    "bound_method_key": '''
def keyed(entry, table={{}.setdefault: 0}):
    for remember in table:
        seen = remember("seen", [])
        previous = seen[-1] if seen else None
        seen.append(entry)
        return previous


def run(params):
    return {"previous": keyed(params.get("secret"))}
''',
    "partial_keywords": '''
import functools


def remember(entry, box=functools.partial(dict, seen=[])):
    seen = box.keywords["seen"]
    previous = seen[-1] if seen else None
    seen.append(entry)
    return previous


def run(params):
    return {"previous": remember(params.get("secret"))}
''',
    "library_list": '''
import calendar


def run(params):
    previous = calendar.mdays[-1] if len(calendar.mdays) > 13 else None
    if "secret" in params:
        calendar.mdays.append(params["secret"])
    return {"previous": previous}
''',
    "library_set": '''
import hashlib


def run(params):
    extra = sorted(name for name in hashlib.algorithms_available if name.startswith("x"))
    if "secret" in params:
        hashlib.algorithms_available.add("x" + str(params["secret"]))
    return {"previous": extra[0][1:] if extra else None}
''',
    "dict_order": '''
TABLE = {"a": 1, "b": 2}


def run(params):
    previous = list(TABLE)
    if "secret" in params:
        TABLE["a"] = TABLE.pop("a")
    return {"previous": 12345 if previous == ["b", "a"] else None}
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



def test_members_bound_to_library_objects_keep_the_warm_worker(tool, policy):
    """`random.choice` is bound to the global generator (reseeded after each call),
    `calendar.monthcalendar` to calendar's shared instance (its first weekday is compared),
    `decimal` arithmetic sets the context's flags (cleared after each call): understood."""
    path = tool('''
from random import choice
from calendar import monthcalendar
from decimal import Decimal


def run(params, pick=choice, weeks=monthcalendar):
    third = Decimal(1) / Decimal(3)
    return {"n": len(weeks(2024, 2)), "pick": pick([1]), "third": str(third)[:4]}
''')
    with WorkerPool(path, module_name="state_v1", policy=policy,
                    limits=SandboxLimits(timeout_s=10.0), size=1) as pool:
        for _ in range(3):
            assert pool.call({}) == {"n": 5, "pick": 1, "third": "0.33"}
        assert pool.stats["started"] == 1
        assert pool.stats["replaced"] == 0


def test_a_name_starting_with_an_underscore_is_compared(tool, policy):
    """The check skipped every global starting with `_` ("tools cannot bind them"): the next
    issue lets the gate accept `_seen = []`. Shown with the Python layer off (RestrictedPython
    refuses such names today); the worker's own names are skipped by identity only."""
    path = tool('''
_seen = []


def run(params):
    previous = _seen[-1] if _seen else None
    _seen.append(params.get("secret"))
    return {"previous": previous}
''')
    with WorkerPool(path, module_name="state_v1", policy=policy, size=1,
                    limits=SandboxLimits(timeout_s=10.0),
                    _skip_layers=frozenset({"restricted"})) as pool:
        pool.call({"secret": 12345})
        assert pool.call({"other": 1}) == {"previous": None}
        assert pool.stats["replaced"] >= 1


FINDING_1 = (Path(__file__).resolve().parents[1] / "gate" / "cases" / "contained"
             / "state_bound_method_default.py")


def test_finding_1_through_ensure_and_call_on_one_warm_runtime(tmp_path):
    """Issue 26, finding 1, through the public path: `ensure` verifies and activates the
    red team's tool, then one runtime serves three callers. Each sees nothing of the others,
    and each call gets a fresh worker: the tool reports a number drawn once per worker."""
    source = FINDING_1.read_text(encoding="utf-8").replace(
        'def log(entry, remember={}.setdefault):',
        'def log(entry, remember={}.setdefault, worker=random.random()):\n'
        '    if entry is None:\n'
        '        return worker').replace(
        '"""Keeps a log of the texts it has seen."""\n',
        '"""Keeps a log of the texts it has seen."""\nimport random\n').replace(
        'def run(params):\n    return {"seen": log(params["secret"])}',
        'def run(params):\n    return {"seen": log(params["secret"]), "worker": log(None)}')
    source = source.replace('"result": {"seen": []}', '"result": {"seen": [], "worker": 0}')
    source = source.replace('"worker": log(None)}', '"worker": log(None) if params["secret"] '
                            '!= "a" else 0}')
    path = tmp_path / "state_bound_method_default.py"
    path.write_text(source, encoding="utf-8")
    with Dyntools(tmp_path / "registry", generator=FileGenerator(path)) as dt:
        assert dt.ensure("state_bound_method_default").version == 1
        answers = [dt.call("state_bound_method_default", {"secret": name})
                   for name in ("alice", "bob", "carol")]
    assert [answer["seen"] for answer in answers] == [[], [], []], answers
    workers = [answer["worker"] for answer in answers]
    assert len(set(workers)) == 3, "a worker served two callers"


# -- the check itself, in this process --------------------------------------------------------

def _state(namespace: dict[str, Any], **kwargs: Any) -> Any:
    from dyntools.sandbox.worker.guards import ModuleView
    from dyntools.sandbox.worker.state import ModuleState

    return ModuleState(namespace, module_view_type=ModuleView, **kwargs)


def test_the_workers_own_names_are_skipped_by_identity_only():
    builtins_table: dict[str, Any] = {"len": len}

    def guard(obj: Any, name: str) -> Any:  # a guard's stand-in
        return getattr(obj, name)

    namespace: dict[str, Any] = {"__builtins__": builtins_table, "_getattr_": guard,
                                 "_seen": [], "__name__": "tool"}
    own = {"__builtins__": builtins_table, "_getattr_": guard, "__name__": "tool"}
    state = _state(namespace, own=own)
    assert not state.changed() and not state.opaque
    builtins_table["extra"] = 1  # the worker's own table: not the tool's state
    assert not state.changed()
    namespace["_seen"].append("alice")  # a tool's name, whatever it starts with
    assert state.changed() and state.changed_slowly()
    namespace["_seen"].clear()
    assert not state.changed()
    namespace["_getattr_"] = lambda obj, name: None  # a worker's name bound to another object
    assert state.changed() and state.changed_slowly()


def test_an_own_name_holding_something_else_at_load_is_walked():
    seen: list[Any] = []
    namespace: dict[str, Any] = {"_getattr_": seen}
    state = _state(namespace, own={"_getattr_": len})
    seen.append(1)
    assert state.changed()


def test_the_workers_own_objects_held_by_the_tool_are_understood():
    output: list[str] = []

    def worker_print(*args: Any) -> None:  # a closure over the worker's output buffer
        output.append(" ".join(map(str, args)))

    def show(value: Any, emit: Any = worker_print) -> Any:
        return emit(value)

    namespace: dict[str, Any] = {"show": show}
    state = _state(namespace, own_objects=[worker_print])
    show("printed")
    assert not state.opaque and not state.changed()


def test_a_cache_is_spent_unless_the_worker_empties_it():
    import functools

    namespace: dict[str, Any] = {}
    exec(compile("def square(n):\n    return n * n\n", "<tool>", "exec"), namespace)
    namespace["cached"] = functools.lru_cache(maxsize=None)(namespace["square"])
    own = {"__builtins__": namespace["__builtins__"]}
    spent = _state(dict(namespace), own=own)
    assert spent.opaque and "cache" in spent.reasons[0]
    # The next issue lets tools decorate helpers; the worker then empties their caches after
    # each call and the check understands them.
    state = _state(namespace, own=own, clear_tool_caches=True)
    assert not state.opaque, state.reasons
    namespace["cached"](3)
    assert namespace["cached"].cache_info().currsize == 1
    assert not state.changed()
    assert namespace["cached"].cache_info().currsize == 0


def test_a_walk_that_fails_understands_nothing():
    class Exploding(dict):  # the walk meets an object whose items raise
        def values(self):  # type: ignore[override]
            raise MemoryError

    from dyntools.sandbox.worker.state import ModuleState

    broken = ModuleState({"run": len}, members=[Exploding()], own_objects=[object()])
    assert broken.opaque and broken.changed()


def test_a_check_that_raises_says_changed():
    def make() -> Any:
        box = [1]

        def inner() -> Any:
            nonlocal box
            return box

        def empty() -> None:
            nonlocal box
            del box

        return inner, empty

    inner, empty = make()
    namespace: dict[str, Any] = {"inner": inner}
    state = _state(namespace)
    assert not state.changed()
    empty()  # the cell is empty now: reading it raises ValueError inside the check
    assert state.changed() and state.changed_slowly()


# The per-call check (`changed`) is laid out for speed; `changed_slowly` walks everything again
# and compares item by item. Each mutation below must give both the same answer (a binding
# deleted and added back is the one case where the fast check is stricter: it says "changed").
MODULE = '''
import collections
import decimal
import functools

LIMITS = {"low": 1, "high": [1, 2, 3]}
QUEUE = collections.deque([[1], [2]])
COUNTS = collections.Counter(a=1)
WORDS = ("a", "b", [0])
TAGS = {"x", "y"}
RAW = bytearray(b"ab")
GROUPS = collections.defaultdict(list, {"k": [1]})
ORDERED = collections.OrderedDict(a=1, b=2)


def helper(value, seen=[], *, keyed={"k": []}):
    return value


def make():
    cell = []

    def inner():
        return cell
    return inner


INNER = make()
BOUND = {}.setdefault
PARTIAL = functools.partial(max, [], key=len)
WINDOW = slice([], None)


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

    def rebind_cell(ns: dict[str, Any]) -> None:
        ns["INNER"].__closure__[0].cell_contents = []

    def move_key(ns: dict[str, Any]) -> None:
        ns["LIMITS"]["low"] = ns["LIMITS"].pop("low")

    def replace_nested_with_equal(ns: dict[str, Any]) -> None:
        ns["LIMITS"]["high"] = list(ns["LIMITS"]["high"])

    def move_between_lists(ns: dict[str, Any]) -> None:
        first, second = ns["QUEUE"]
        second.insert(0, first.pop())

    def ordered_move(ns: dict[str, Any]) -> None:
        ns["ORDERED"].move_to_end("a")

    return {
        "nothing": lambda ns: None,
        "rebind to an equal list": lambda ns: ns.__setitem__("LIMITS", dict(ns["LIMITS"])),
        "new global": lambda ns: ns.__setitem__("NEW", 1),
        "deleted global": lambda ns: ns.pop("WORDS"),
        "nested list": lambda ns: ns["LIMITS"]["high"].append(4),
        "nested list replaced by an equal one": replace_nested_with_equal,
        "dict key moved to the end": move_key,
        "item moved between two lists": move_between_lists,
        "list inside a tuple": lambda ns: ns["WORDS"][2].append(1),
        "deque item": lambda ns: ns["QUEUE"][0].append(3),
        "counter": lambda ns: ns["COUNTS"].update(b=1),
        "counter key with a zero count": lambda ns: ns["COUNTS"].__setitem__("z", 0),
        "set item": lambda ns: ns["TAGS"].add("z"),
        "bytearray": lambda ns: ns["RAW"].append(1),
        "defaultdict item": lambda ns: ns["GROUPS"]["new"].append(1),
        "ordered dict moved": ordered_move,
        "mutable default": lambda ns: ns["helper"].__defaults__[0].append(1),
        "keyword default": lambda ns: ns["helper"].__kwdefaults__["keyed"]["k"].append(1),
        "closure cell": lambda ns: ns["INNER"]().append(1),
        "closure cell rebound": rebind_cell,
        "object bound to a built-in method": lambda ns: ns["BOUND"]("k", 1),
        "partial's argument": lambda ns: ns["PARTIAL"].args[0].append(1),
        "partial's keywords": lambda ns: ns["PARTIAL"].keywords.__setitem__("default", 1),
        "slice's field": lambda ns: ns["WINDOW"].start.append(1),
        "defaults of a bare function": set_defaults,
        "keyword defaults of a bare function": set_kwdefaults,
        "decimal context": lambda ns: ns["decimal"].getcontext().__setattr__("prec", 7),
        "same binding deleted and added back": reorder,
        "last binding renamed": swap_last,
    }


@pytest.mark.parametrize("name", sorted(_mutations()))
def test_the_fast_state_check_answers_as_the_reference_does(name):
    import decimal

    namespace: dict[str, Any] = {}
    exec(compile(MODULE, "<tool>", "exec"), namespace)
    context = decimal.getcontext()
    decimal.setcontext(decimal.Context())
    try:
        state = _state(namespace, own={"__builtins__": namespace["__builtins__"]})
        assert not state.opaque, state.reasons
        assert not state.changed() and not state.changed_slowly()
        _mutations()[name](namespace)
        fast, reference = state.changed(), state.changed_slowly()
    finally:
        decimal.setcontext(context)
    if name == "same binding deleted and added back":
        assert fast and not reference
    else:
        assert fast == reference == (name != "nothing")
