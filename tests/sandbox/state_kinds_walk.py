"""Every kind of object an allowed module can hand out, held to the state check's rule:
compared after each call, or the worker is spent (`python -m tests.sandbox.state_kinds_walk`
prints the report; `test_state_kinds.py` runs it in a fresh interpreter, since calling the
members changes process-wide state).

Driven from the allow-list: every allowed member of every allowed module and every allowed
builtin; what calling or instantiating each returns for a few cheap argument lists; the
public data attributes of the classes among them; and the public bound methods of all
those values; each kept only if the worker's guards let a tool hold it, and at most
`PER_SHAPE` of one shape (a kind, with the kinds of what it holds). For each value, a tool's
state is built that holds it (a global: a default argument or a closure holds it the same
way), and then:

- the check does not understand it: the worker is spent after every call (`spent`); or
- the check understands it: the value (if callable), every public method of it and of what
  it holds in reach (its public data attributes, a typing form's arguments, a container's
  items) are called with cheap arguments, and whenever what a later call could read of the
  value changed (`observe`), the check must say so (`compared`), or the worker must have
  reset it (the global `random` generator). A change the check misses is a failure.

The allowed members of each module are also walked alone, as the worker walks them for a
tool that imports the module and holds nothing: none may spend the worker (a module that did
would cost every tool importing it a cold start per call).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

# Argument lists tried on every callable: cheap, and none blocks (time.sleep gets 0 only).
ARGUMENTS: tuple[tuple[Any, ...], ...] = (
    (), (0,), (1,), ("a",), ("a", 1), ("a", "b"), ([1, 2],), ({"a": 1},), (b"ab",),
    ("UTC",), ("sha256",), (2024, 2), (len, "ab"),
)
SKIPPED_CALLS = frozenset({"time.sleep"})  # blocks for its argument's seconds
MAX_VALUES = 50_000  # a safety net: the test asserts the walk stayed under it
PER_SHAPE = 3  # values of one shape (`_shape`) judged; more of the same add nothing


# Immutable leaves: no method of theirs changes them, and a container's repr shows them.
LEAVES = (str, bytes, int, float, complex, bool, type(None))


class Refused(Exception):
    """The guards refused a value: no tool can hold it."""


def _refuse(reason: str, message: str) -> Any:
    raise Refused(message)


def _public(value: Any) -> Iterator[tuple[str, Any]]:
    try:
        names = dir(value)
    except Exception:  # a library object whose dir( fails: nothing to read)
        return
    for name in names:
        if name.startswith("_"):
            continue
        try:
            yield name, getattr(value, name)
        except Exception:  # a property that raises: nothing to read
            continue


_DERIVED: dict[type, frozenset[str]] = {}


def _derived(kind: type) -> frozenset[str]:
    """Names of a class's `cached_property`s: caches of values derived from the object."""
    if kind not in _DERIVED:
        _DERIVED[kind] = frozenset(
            name for klass in getattr(kind, "__mro__", ()) for name, attribute in
            list(vars(klass).items()) if type(attribute).__name__ == "cached_property")
    return _DERIVED[kind]


def _held(value: Any) -> list[Any]:
    """What `value` holds directly, cheaply: the object a method is bound to, a slice's
    fields, a partial's parts, a typing form's arguments, a container's first items."""
    import functools
    import typing

    held: list[Any] = []
    bound = getattr(value, "__self__", None)
    if bound is not None:
        held.append(bound)
    if isinstance(value, slice):
        held += [value.start, value.stop, value.step]
    elif isinstance(value, functools.partial):
        held += [value.func, *value.args, *value.keywords.values()]
    elif isinstance(value, (list, tuple, set, frozenset)):
        held += list(value)[:5]
    elif isinstance(value, dict):
        held += list(value.values())[:5]
    with contextlib.suppress(Exception):
        held += list(typing.get_args(value))
    return held


def _shape(value: Any) -> tuple[str, ...]:
    """A value's kind and the kinds of what it holds: `slice(0)` and `slice([1])`, or a
    string's method and a dict's, are different cases for the check."""
    return (type(value).__qualname__,
            *sorted({type(item).__qualname__ for item in _held(value)}))


def _parts(value: Any) -> list[Any]:
    """What a tool holding `value` reaches in it without calling anything: its public data
    attributes (`partial.keywords`, `slice.start`), a typing form's arguments
    (`typing.get_args`), a few items of a container."""
    import typing

    found = [attribute for _, attribute in _public(value)
             if not callable(attribute) and type(attribute) is not type(sys)]
    with contextlib.suppress(Exception):
        found += list(typing.get_args(value))
    if isinstance(value, (list, tuple, set, frozenset)):
        found += list(value)[:5]
    elif isinstance(value, dict):
        found += list(value.values())[:5]
    return [part for part in found if not isinstance(part, (type, *LEAVES))]


def observe(value: Any, depth: int = 0, seen: set[int] | None = None) -> Any:
    """What a later call could read of `value`: its repr, the contents of containers, the
    object a method is bound to, a partial's parts, a function's defaults and cells, an
    instance's attributes (less the caches of values derived from the object itself)."""
    seen = set() if seen is None else seen
    if depth > 8 or id(value) in seen:
        return "..."
    seen.add(id(value))
    try:
        text = repr(value)
    except Exception as exc:  # an object whose repr fails
        text = f"<repr failed: {type(exc).__name__}>"
    parts: list[Any] = [type(value).__name__, text]
    bound = getattr(value, "__self__", None)
    if bound is not None and type(bound) is not type(sys):
        parts.append(observe(bound, depth + 1, seen))
    for name in ("func", "args", "keywords", "__defaults__", "__kwdefaults__", "start",
                 "stop", "step", "__args__", "__metadata__", "default_factory"):
        try:
            part = getattr(value, name)
        except Exception:  # absent, or a descriptor that raises
            continue
        if not callable(part) or name == "func":
            parts.append((name, observe(part, depth + 1, seen)))
    for cell in getattr(value, "__closure__", None) or ():
        try:
            parts.append(observe(cell.cell_contents, depth + 1, seen))
        except ValueError:
            parts.append("empty cell")
    # (The repr shows a container's leaves; what else it holds is observed in turn.)
    if isinstance(value, (list, tuple, set, frozenset)) or type(value).__name__ == "deque":
        parts.append([observe(item, depth + 1, seen) for item in list(value)
                      if not isinstance(item, LEAVES)])
    elif isinstance(value, dict):
        parts.append([(observe(k, depth + 1, seen), observe(v, depth + 1, seen))
                      for k, v in list(value.items()) if not isinstance(v, LEAVES)])
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and not isinstance(value, type):
        derived = _derived(type(value))
        parts.append([(k, observe(v, depth + 1, seen)) for k, v in list(attributes.items())
                      if k not in derived])
    return parts


def _calls(function: Any) -> Iterator[Any]:
    for arguments in ARGUMENTS:
        try:
            yield function(*arguments)
        except Exception:  # a call these arguments do not fit
            continue


class Survey:
    def __init__(self) -> None:
        from dyntools.gate.policy import load_policy
        from dyntools.sandbox.worker.guards import ModuleView
        from dyntools.sandbox.worker.hardening import DataCopier, refuse_string_annotations

        self.policy = load_policy()
        for name in sorted(self.policy.python_modules):
            with contextlib.suppress(ImportError):
                __import__(name)
        refuse_string_annotations(sys.modules["typing"])
        copy, deepcopy = DataCopier().functions()
        self.replacements = {("copy", "copy"): copy, ("copy", "deepcopy"): deepcopy}
        self.module_view = ModuleView
        self.guards = self.worker_guards()
        self.values: dict[int, tuple[str, Any]] = {}  # id -> (where it came from, value)
        self.members: dict[str, list[Any]] = {}
        self.report: dict[str, Any] = {"spent": {}, "compared": {}, "failures": [],
                                       "members_spent": {}}
        self.shapes: dict[tuple[str, ...], int] = {}

    def worker_guards(self) -> Any:
        """The guards as the worker builds them: a value they refuse is out of a tool's
        reach, and not the state check's to compare."""
        from dyntools.sandbox.spec import escape_members
        from dyntools.sandbox.worker.guards import Guards, refused_library_kinds, safe_builtins

        escapes = [(f"{module}.{member}", getattr(sys.modules[module], member))
                   for module, member in escape_members(self.policy)
                   if module in sys.modules and hasattr(sys.modules[module], member)]
        guards = Guards(stop=_refuse, denied_attributes=self.policy.denied_attributes,
                        denied_prefixes=self.policy.denied_attribute_prefixes,
                        escape_objects=escapes, max_output_bytes=1 << 20, tool_globals={})
        replacements = {"copy": {"copy": self.replacements[("copy", "copy")],
                                 "deepcopy": self.replacements[("copy", "deepcopy")]}}
        for name, module in sorted(self.policy.modules.items()):
            if name in sys.modules:
                guards.add_module(name, sys.modules[name], sorted(module.members),
                                  replacements.get(name))
        safe_builtins(sorted(self.policy.builtins), guards)
        for kind in refused_library_kinds():
            guards.forbid_type(kind)
        return guards

    def reachable(self, value: Any) -> bool:
        try:
            self.guards.check_value(value)
        except Refused:
            return False
        return True

    def member_values(self, module_name: str) -> list[Any]:
        module = sys.modules[module_name]
        found = []
        for member in sorted(self.policy.modules[module_name].members):
            value = self.replacements.get((module_name, member), getattr(module, member, None))
            if value is not None:
                found.append(value)
        return found

    def add(self, where: str, value: Any) -> bool:
        if id(value) in self.values or len(self.values) >= MAX_VALUES:
            return False
        if not self.reachable(value):
            return False
        shape = _shape(value)
        self.shapes[shape] = self.shapes.get(shape, 0) + 1
        if self.shapes[shape] > PER_SHAPE:
            return False
        self.values[id(value)] = (where, value)
        return True

    def collect(self) -> None:
        import builtins

        sources: list[tuple[str, str, Any]] = []
        for module_name in sorted(self.policy.python_modules):
            if module_name not in sys.modules:
                continue
            self.members[module_name] = self.member_values(module_name)
            for member in sorted(self.policy.modules[module_name].members):
                value = self.replacements.get((module_name, member),
                                              getattr(sys.modules[module_name], member, None))
                sources.append((module_name, f"{module_name}.{member}", value))
        for name in sorted(self.policy.builtins):
            if name != "print" and hasattr(builtins, name):
                sources.append(("builtins", name, getattr(builtins, name)))
        self.members["builtins"] = []
        made: list[tuple[str, str, Any]] = []
        for module_name, where, value in sources:
            self.add(f"{module_name}|{where}", value)
            if isinstance(value, type):
                for name, attribute in _public(value):
                    if not callable(attribute):
                        made.append((module_name, f"{where}.{name}", attribute))
            if callable(value) and where not in SKIPPED_CALLS:
                made += [(module_name, f"{where}(...)", result) for result in _calls(value)]
            if module_name in ("typing", "builtins"):  # forms and generic aliases
                for key in (int, (int, [1, 2])):
                    with contextlib.suppress(Exception):
                        made.append((module_name, f"{where}[...]", value[key]))
        for module_name, where, value in made:
            if self.add(f"{module_name}|{where}", value):
                for name, attribute in _public(value):
                    if callable(attribute) and not isinstance(attribute, type):
                        self.add(f"{module_name}|{where}.{name}", attribute)

    def state(self, module_name: str, value: Any) -> Any:
        """A tool's state holding `value`. (The allowed members of its module are walked on
        their own, below: a value held by the tool is walked whatever it is, classes and
        the objects methods are bound to included.)"""
        from dyntools.sandbox.worker.state import ModuleState

        own = [*self.replacements.values()]
        return ModuleState({"HELD": value}, own_objects=own, module_view_type=self.module_view)

    def judge(self, key: str, value: Any) -> None:
        module_name, where = key.split("|", 1)
        kind = f"{type(value).__module__}.{type(value).__qualname__}"
        state = self.state(module_name, value)
        if state.opaque:
            self.report["spent"][kind] = [where, state.reasons[0]]
            return
        if state.changed():
            self.report["failures"].append(f"{where}: a {kind} reads as changed at once")
            return
        self.report["compared"].setdefault(kind, where)
        # What a tool holding the value can do with it: call it, and call its public
        # methods (a bound method's object is out of its reach: `__self__` is refused).
        methods: list[tuple[str, Callable[..., Any]]] = []
        if callable(value) and not isinstance(value, type):
            methods.append(("()", value))
        for target in (value, *filter(self.reachable, _parts(value))):
            methods += [(name, method) for name, method in _public(target)
                        if callable(method) and not isinstance(method, type)]
        for name, method in methods:
            if f"{where}.{name}" in SKIPPED_CALLS or name == "sleep":
                continue
            for arguments in ARGUMENTS:
                before = observe(value)
                with contextlib.suppress(Exception):
                    method(*arguments)
                if observe(value) == before:
                    continue
                # Changed: the check must say so, unless the worker resets what changed
                # (the global random generator is reseeded inside `changed`).
                if not state.changed() and observe(value) != before:
                    self.report["failures"].append(
                        f"{where}: {name}{arguments!r} changed a {kind} and the check did "
                        "not see it")
                    return
                state = self.state(module_name, value)
                if state.opaque:
                    return

    def run(self) -> dict[str, Any]:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.collect()
            for key, value in list(self.values.values()):
                self.judge(key, value)
            for module_name, members in sorted(self.members.items()):
                from dyntools.sandbox.worker.state import ModuleState

                alone = ModuleState({}, members=members, module_view_type=self.module_view,
                                    own_objects=[*self.replacements.values()])
                if alone.opaque:
                    self.report["members_spent"][module_name] = alone.reasons
        self.report["values"] = len(self.values)
        self.report["shapes"] = len(self.shapes)
        return self.report


def main() -> None:
    print(json.dumps(Survey().run(), sort_keys=True, default=str))


if __name__ == "__main__":
    main()
