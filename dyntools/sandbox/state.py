"""What a warm worker keeps between calls, and when it may not keep it (worker side).

A warm worker serves calls one after another, possibly for different callers. Nothing one
call leaves behind may reach the next: a module-level cache filled with one caller's params
would answer another. After each call the worker compares the tool's module state with the
state right after its module body ran:

- every global name still bound to the same object;
- every module-level container (list, dict, set, tuple, the `collections` types, nested)
  still equal to a copy taken after load (leaves are shared, so the comparison is by
  identity below the containers: cheap, and exact);
- process-wide library state a tool can change through allowed members: the `decimal`
  contexts, `calendar.firstweekday()`, `csv.field_size_limit()` and its dialects.

If anything changed, the reply says so and the worker ends after it (`spent`): the host starts
a fresh one for the next call. A module-level object whose state cannot be compared (a
`random.Random` instance, a bound method of one) makes every call spend the worker. The
global `random` generator is reseeded from the OS after each call instead: what one caller
seeded is never what the next one draws from.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_MISSING = object()
MAX_DEPTH = 50


class ModuleState:
    def __init__(self, namespace: dict[str, Any], static_kinds: frozenset[type]) -> None:
        self.namespace = namespace
        self.static_kinds = static_kinds
        self.names = dict(namespace)
        self.containers: dict[str, Any] = {}
        self.defaults: list[tuple[Any, Any, Any]] = []
        self.opaque = False
        container_kinds = _container_kinds()
        self.container_kinds = container_kinds
        function_type = type(_reseeder)  # a Python function
        for name, value in namespace.items():
            if name.startswith("_"):
                continue  # the worker's own names (builtins, guards): tools cannot bind them
            if type(value) in container_kinds:
                self.containers[name] = self.snapshot(value, 0)
            elif type(value) is function_type and value.__globals__ is namespace:
                # `def f(x, seen=[])`: a default filled by one call is there for the next.
                self.defaults.append((value, self.snapshot(value.__defaults__, 0),
                                      self.snapshot(value.__kwdefaults__, 0)))
            elif not self.is_static(value):
                self.opaque = True
        self.process = _process_state()
        self.fingerprint = self.process()
        self.reseed = _reseeder()

    def is_static(self, value: Any) -> bool:
        kind = type(value)
        return kind in self.static_kinds or issubclass(kind, type)

    def snapshot(self, value: Any, depth: int) -> Any:
        """A copy of the containers in `value`; anything else is the same object."""
        kind = type(value)
        if kind not in self.container_kinds:
            if not self.is_static(value):
                self.opaque = True
            return value
        if depth > MAX_DEPTH:
            self.opaque = True
            return value
        depth += 1
        if kind is list:
            return [self.snapshot(v, depth) for v in value]
        if kind is tuple:
            return tuple([self.snapshot(v, depth) for v in value])
        if kind in (set, frozenset):
            return kind(value)  # items are hashable: compared as they are
        if kind is dict:
            return {k: self.snapshot(v, depth) for k, v in value.items()}
        if kind is bytearray:
            return bytearray(value)
        # Counter, OrderedDict, defaultdict, deque: compare as their plain contents.
        if hasattr(value, "items"):
            return (kind, {k: self.snapshot(v, depth) for k, v in value.items()},
                    getattr(value, "default_factory", None))
        return (kind, [self.snapshot(v, depth) for v in value], value.maxlen)

    def same(self, value: Any, copy: Any) -> bool:
        kind = type(value)
        if value is None:
            return copy is None
        if kind in (list, tuple, set, frozenset, dict, bytearray):
            return bool(value == copy)
        if kind in self.container_kinds:
            return bool(self.snapshot(value, 0) == copy)
        return value is copy

    def changed(self) -> bool:
        """Did the last call leave anything behind? (Reseeds `random` either way.)"""
        self.reseed()
        if self.opaque:
            return True
        namespace = self.namespace
        if len(namespace) != len(self.names):
            return True
        for name, value in self.names.items():
            if namespace.get(name, _MISSING) is not value:
                return True
        for name, copy in self.containers.items():
            if not self.same(namespace[name], copy):
                return True
        for function, defaults, kwdefaults in self.defaults:
            if not (self.same(function.__defaults__, defaults)
                    and self.same(function.__kwdefaults__, kwdefaults)):
                return True
        return self.process() != self.fingerprint


def _container_kinds() -> frozenset[type]:
    kinds: set[type] = {list, tuple, set, frozenset, dict, bytearray}
    collections = sys.modules.get("collections")
    if collections is not None:
        kinds.update({collections.Counter, collections.OrderedDict,
                      collections.defaultdict, collections.deque})
    return frozenset(kinds)


def _process_state() -> Callable[[], tuple[Any, ...]]:
    decimal = sys.modules.get("decimal")
    calendar = sys.modules.get("calendar")
    csv = sys.modules.get("csv")

    def read() -> tuple[Any, ...]:
        parts: list[Any] = []
        if decimal is not None:
            context = decimal.getcontext()
            parts += [id(context), repr(context), repr(decimal.DefaultContext),
                      repr(decimal.BasicContext), repr(decimal.ExtendedContext)]
        if calendar is not None:
            parts.append(calendar.firstweekday())
        if csv is not None:
            parts += [csv.field_size_limit(), tuple(sorted(csv.list_dialects()))]
        return tuple(parts)

    return read


def _reseeder() -> Callable[[], None]:
    random = sys.modules.get("random")
    if random is None:
        return lambda: None
    seed: Callable[[], None] = random.seed
    return seed


def static_kinds(module_view_type: type) -> frozenset[type]:
    """Kinds of module-level values that hold no state a call can change."""
    kinds: set[type] = {
        str, bytes, int, float, complex, bool, type(None), range, slice,
        type(Ellipsis), type(NotImplemented), module_view_type, type(sys),
        type(len), type(static_kinds),  # built-in and Python functions
    }
    for module_name, names in (
        ("datetime", ("date", "datetime", "time", "timedelta", "timezone")),
        ("re", ("Pattern", "RegexFlag")), ("decimal", ("Decimal",)),
        ("fractions", ("Fraction",)), ("zoneinfo", ("ZoneInfo",)), ("uuid", ("UUID",)),
        ("ipaddress", ("IPv4Address", "IPv6Address", "IPv4Network", "IPv6Network")),
        ("string", ("Template",)), ("functools", ("partial",)),
    ):
        module = sys.modules.get(module_name)
        for name in names:
            kind = getattr(module, name, None) if module is not None else None
            if isinstance(kind, type):
                kinds.add(kind)
    typing = sys.modules.get("typing")
    if typing is not None:
        kinds.update({type(typing.List), type(typing.List[int]), type(typing.Any),
                      type(typing.Optional), type(typing.Union[int, str])})
    return frozenset(kinds)
