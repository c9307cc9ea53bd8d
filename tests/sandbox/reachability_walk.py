"""The reachability walk (issue 9): from every allowed module member and builtin, call with
crafted argument shapes and follow what comes back and what is left behind.

Run in a fresh interpreter (it hardens `typing` and `copy` as the worker does, for the whole
process): `python tests/sandbox/reachability_walk.py [--calls N] [--depth D]`. It prints one
JSON object: the number of calls made and the findings, each a place where a tool could hold
something it must never hold *without a guard stopping it*:

- `left_in_argument`: after a call, a container the tool passed in holds a forbidden object
  (containers the tool built are read with no guard: nothing may be put there);
- `constructed`: calling an allowed class (a call `flow` leaves unguarded) gave a forbidden
  object;
- `audit`: a call compiled or executed a string, or wrote a function's code or an object's
  class (`object.__setattr__`), outside an import;
- `hook_argument` is informational: what library code passed to a tool callback (the
  callback's `_args_` guard checks it).

Results and attributes of results are followed through the real guards (`_call_`,
`_getattr_`): a value they stop is guarded, not a finding. `tests/sandbox/test_reachability.py`
runs a bounded walk in `make test`; `make fuzz` runs a longer one.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import io
import itertools
import json
import signal
import sys
from typing import Any

from dyntools.gate.policy import load_policy
from dyntools.sandbox.spec import escape_members
from dyntools.sandbox.worker.audit import PROTECTED_ATTRIBUTES, importing
from dyntools.sandbox.worker.guards import (
    CHECKED_PLAIN,
    FunctionType,
    Guards,
    ModuleView,
    safe_builtins,
)

MAX_VALUES = 80
# A call that waits (a queue.Queue's get on an empty queue, time.sleep) is cut short: the walk
# is about what a call returns or leaves behind, not about how long it takes (the worker's
# timeout bounds that).
CALL_BUDGET_SECONDS = 0.2
# Iterators that never end: a C loop over one (dict.fromkeys) can be neither bounded nor
# interrupted, so they are not handed to other callables.
ENDLESS = (type(itertools.count()), type(itertools.cycle("a")), type(itertools.repeat(0)))


class Stopped(Exception):
    pass


class CallTimeout(Exception):
    pass


# Whether a call is under way: an alarm that fires as it is being disarmed may be handled a
# few bytecodes later, in the walk's own code, which must not see it.
ARMED = [False]


def _on_alarm(signum: int, frame: Any) -> None:
    if ARMED[0]:
        raise CallTimeout


def _stop(reason: str, message: str) -> Any:
    raise Stopped(message)


class Walk:
    def __init__(self, budget: int, depth: int, trace: bool = False) -> None:
        self.trace = trace
        signal.signal(signal.SIGALRM, _on_alarm)  # each call's budget (CALL_BUDGET_SECONDS)
        self.budget = budget
        self.depth = depth
        self.calls = 0
        self.findings: list[dict[str, str]] = []
        self.hook_arguments: set[str] = set()
        self.current = ""
        self.namespace: dict[str, Any] = {"__name__": "walk_tool"}
        policy = load_policy()
        modules = {name: sorted(module.members) for name, module in policy.modules.items()}
        for name in modules:
            with contextlib.suppress(ImportError):
                __import__(name)
        from dyntools.sandbox.worker.hardening import DataCopier, refuse_string_annotations

        refuse_string_annotations(sys.modules["typing"])
        copy, deepcopy = DataCopier().functions()
        escapes = []
        for module_name, member in escape_members(policy):
            module = sys.modules.get(module_name)
            value = getattr(module, member, None) if module is not None else None
            if value is not None:
                escapes.append((f"{module_name}.{member}", value))
        self.guards = Guards(stop=_stop, denied_attributes=policy.denied_attributes,
                             denied_prefixes=policy.denied_attribute_prefixes,
                             escape_objects=escapes, max_output_bytes=1 << 20,
                             tool_globals=self.namespace)
        replacements = {"copy": {"copy": copy, "deepcopy": deepcopy}}
        for name, members in modules.items():
            module = sys.modules.get(name)
            if module is not None:
                self.guards.add_module(name, module, members, replacements.get(name))
        self.builtins = safe_builtins(sorted(policy.builtins), self.guards)
        import typing

        self.guards.forbid_type(typing.ForwardRef)
        self.names = self.guards.guard_names()
        exec(compile("def hook(*args, **kwargs):\n    record(args, kwargs)\n"
                     "    return args[0] if args else 0\n", "walk_tool.py", "exec"),
             self.namespace)
        self.namespace["record"] = self.record_hook
        self.hook = self.namespace["hook"]
        self.watching = False
        self.followed: set[type] = set()
        self.callables: dict[str, Any] = {}
        self.values: list[Any] = []  # one library value of each type results gave
        self.value_types: set[type] = set()
        sys.addaudithook(self.audit)

    # -- what counts --------------------------------------------------------------------

    def forbidden(self, value: Any) -> str | None:
        """Why the guards would refuse `value`, or None."""
        if type(value) in CHECKED_PLAIN:
            return None
        try:
            self.guards.check_value(value)
        except Stopped as exc:
            return str(exc)
        return None

    def deep_forbidden(self, value: Any, depth: int = 4, seen: set[int] | None = None
                       ) -> str | None:
        seen = set() if seen is None else seen
        if id(value) in seen or depth < 0:
            return None
        seen.add(id(value))
        reason = self.forbidden(value)
        if reason:
            return reason
        if type(value) in (list, tuple, set, frozenset):
            items: list[Any] = list(value)
        elif type(value) is dict:
            items = [*value.keys(), *value.values()]
        else:
            return None
        for item in items:
            reason = self.deep_forbidden(item, depth - 1, seen)
            if reason:
                return reason
        return None

    def finding(self, kind: str, detail: str) -> None:
        self.findings.append({"kind": kind, "where": self.current, "detail": detail[:300]})

    def record_hook(self, args: Any, kwargs: Any) -> None:
        for value in [*args, *kwargs.values()]:
            reason = self.forbidden(value)
            if reason:
                self.hook_arguments.add(f"{self.current}: {reason}"[:200])

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.watching or importing():
            return
        if event in ("compile", "exec"):
            filename = (args[1] if event == "compile" and len(args) > 1
                        else getattr(args[0], "co_filename", ""))
            if isinstance(filename, str) and filename.endswith(".py"):
                return
            self.watching = False
            self.finding("audit", f"{event} of {filename!r}")
            self.watching = True
        elif event == "object.__setattr__" and len(args) > 1 and (
                args[1] in PROTECTED_ATTRIBUTES or type(args[0]) is FunctionType):
            self.watching = False
            self.finding("audit", f"object.__setattr__ of {args[1]!r}")
            self.watching = True

    # -- the walk -------------------------------------------------------------------------

    def shapes(self) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
        hook = self.hook
        return [
            ((), {}), ((0,), {}), ((2,), {}), (("1+1",), {}), (("a", "b"), {}),
            (([],), {}), (({},), {}), (([3, 1, 2],), {}), (({"k": [1]}, {}), {}),
            ((hook,), {}), ((hook, [1, 2]), {}), (([1, 2], hook), {}),
            (("a",), {"key": hook}), (([1],), {"default": hook}),
            (({},), {"object_hook": hook}), (([[1], {}],), {}),
            ((b"x",), {}), ((1.5,), {}), ((("a", 1),), {}),
        ]

    def call(self, label: str, func: Any, depth: int,
             shapes: list[tuple[tuple[Any, ...], dict[str, Any]]] | None = None) -> None:
        constructor = isinstance(func, type)
        self.callables.setdefault(label, func)
        for args, kwargs in shapes if shapes is not None else self.shapes():
            if self.calls >= self.budget:
                return
            self.calls += 1
            self.current = f"{label}({_describe(args, kwargs)})"
            if self.trace:
                sys.stderr.write(self.current + "\n")
                sys.stderr.flush()
            containers = [a for a in [*args, *kwargs.values()]
                          if type(a) in (list, dict, set)]
            self.watching = True
            try:
                try:
                    ARMED[0] = True  # armed inside the try: the alarm may fire at once
                    signal.setitimer(signal.ITIMER_REAL, CALL_BUDGET_SECONDS)
                    result = self.names["_call_"](func, *args, **kwargs)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    ARMED[0] = False
            except Stopped:
                continue  # the call guard refused the result: guarded
            except RecursionError:
                continue
            except Exception:  # any refusal by the callee is fine (a wait cut short too)
                result = None
            finally:
                self.watching = False
            for container in containers:
                reason = self.deep_forbidden(container)
                if reason:
                    self.finding("left_in_argument", reason)
            if constructor:
                reason = self.forbidden(result)
                if reason:
                    self.finding("constructed", reason)
            if result is not None and type(result) not in CHECKED_PLAIN:
                if (len(self.values) < MAX_VALUES and type(result) not in self.value_types
                        and type(result) not in ENDLESS):
                    self.value_types.add(type(result))
                    self.values.append(result)
                if depth > 0:
                    self.follow(f"{label}(...)", result, depth - 1)

    def follow(self, label: str, value: Any, depth: int) -> None:
        """Attributes of a value, through `_getattr_`; callables among them are walked (the
        first value of each type only: the budget goes to breadth)."""
        if type(value) in self.followed:
            return
        self.followed.add(type(value))
        getattr_guard = self.names["_getattr_"]
        for name in sorted(dir(value)):
            if name.startswith("_") or self.calls >= self.budget:
                continue
            try:
                attribute = getattr_guard(value, name)
            except Stopped:
                continue
            except Exception:  # a property that raises
                continue
            if callable(attribute):
                self.call(f"{label}.{name}", attribute, depth)

    def run(self) -> dict[str, Any]:
        for view_name, view in sorted(self.guards.views.items()):
            for member, value in sorted(vars(view).items()):
                if isinstance(value, ModuleView):
                    continue
                if callable(value):
                    self.call(f"{view_name}.{member}", value, self.depth)
                elif type(value) not in CHECKED_PLAIN:
                    self.follow(f"{view_name}.{member}", value, self.depth)
        for name, value in sorted(self.builtins.items()):
            if callable(value) and name not in ("print", "__import__"):
                self.call(name, value, self.depth)
        # Second pass: every callable again, given the library values the first pass made
        # (a Template to copy, a datetime to a hook, a Counter to a memo, ...).
        for label, func in list(self.callables.items()):
            shapes = [((value,), {}) for value in self.values]
            shapes += [((value, {}), {}) for value in self.values[:20]]
            self.call(label, func, 0, shapes)
        unique = {json.dumps(f, sort_keys=True) for f in self.findings}
        return {"calls": self.calls, "findings": [json.loads(f) for f in sorted(unique)],
                "hook_arguments": sorted(self.hook_arguments)}


def _describe(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [type(a).__name__ for a in args] + [f"{k}=" for k in kwargs]
    return ", ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=1)
    parser.add_argument("--trace", action="store_true", help="each call on stderr")
    options = parser.parse_args()
    sys.setrecursionlimit(3000)
    walk = Walk(options.calls, options.depth, options.trace)
    real_stdout = sys.stdout
    sys.stdout = io.StringIO()  # members such as TextCalendar.prmonth print
    try:
        report = walk.run()
    finally:
        sys.stdout = real_stdout
    builtins.print(json.dumps(report), file=real_stdout)


if __name__ == "__main__":
    main()
