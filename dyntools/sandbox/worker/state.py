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
from _operator import is_ as _is

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_MISSING = object()
MAX_DEPTH = 50


class ModuleState:
    def __init__(self, namespace: dict[str, Any], static_kinds: frozenset[type],
                 members: list[Any] | None = None) -> None:
        """`members`: the allowed members the tool can reach (their caches are emptied
        after each call)."""
        self.namespace = namespace
        functools = sys.modules.get("functools")
        cached = getattr(functools, "_lru_cache_wrapper", None)
        self.cache_clearers = [m.cache_clear for m in members or ()
                               if cached is not None and type(m) is cached]
        self.static_kinds = static_kinds
        self.names = dict(namespace)
        self.containers: dict[str, Any] = {}
        self.functions: list[tuple[Any, Any]] = []
        self.tracked: set[int] = set()
        self.opaque = False
        self.container_kinds = _container_kinds()
        self.function_type = type(_reseeder)  # a Python function
        for name, value in namespace.items():
            if name.startswith("_"):
                continue  # the worker's own names (builtins, guards): tools cannot bind them
            if type(value) in self.container_kinds:
                self.containers[name] = self.snapshot(value, 0)
            else:
                self.snapshot(value, 0)
        self.process = _process_state()
        self.fingerprint = self.process()
        self.reseed = _reseeder()
        self._prepare()

    def _prepare(self) -> None:
        """The same comparisons as `changed_slowly`, laid out for the per-call check: the
        bindings as one tuple of keys and one of the objects they name (compared by identity,
        in order; `id()` would raise an audit event per name), plain containers compared
        straight with their copies, and the functions that hold nothing (no defaults, no
        cells) checked by two identity tests."""
        self.keys = tuple(self.names)
        self.values = tuple(self.names.values())
        plain = frozenset({list, tuple, set, frozenset, dict, bytearray})
        self.plain_pairs = [(self.names[name], copy) for name, copy in self.containers.items()
                            if type(self.names[name]) in plain]
        self.other_pairs = [(self.names[name], copy) for name, copy in self.containers.items()
                            if type(self.names[name]) not in plain]
        self.bare_functions = [function for function, state in self.functions
                               if _holds_nothing(state)]
        self.stateful_functions = [(function, state) for function, state in self.functions
                                   if not _holds_nothing(state)]
        self.prepared_functions = len(self.functions)
        self.has_process_state = bool(self.fingerprint)

    def is_static(self, value: Any) -> bool:
        kind = type(value)
        return kind in self.static_kinds or issubclass(kind, type)

    def function_state(self, function: Any, depth: int) -> Any:
        """What a tool function carries from call to call: its defaults (`def f(x, seen=[])`)
        and what its closure cells hold (a module-level `remember = make()`)."""
        cells = []
        for cell in function.__closure__ or ():
            try:
                cells.append(self.snapshot(cell.cell_contents, depth))
            except ValueError:  # an empty cell
                cells.append(_MISSING)
        return (self.snapshot(function.__defaults__, depth),
                self.snapshot(function.__kwdefaults__, depth), tuple(cells))

    def current_state(self, function: Any) -> Any:
        cells = []
        for cell in function.__closure__ or ():
            try:
                cells.append(cell.cell_contents)
            except ValueError:
                cells.append(_MISSING)
        return (function.__defaults__, function.__kwdefaults__, tuple(cells))

    def snapshot(self, value: Any, depth: int) -> Any:
        """A copy of the containers in `value`; anything else is the same object. The tool's
        functions met on the way are tracked (`function_state`)."""
        kind = type(value)
        if kind is self.function_type and value.__globals__ is self.namespace:
            if id(value) not in self.tracked and depth <= MAX_DEPTH:
                self.tracked.add(id(value))
                self.functions.append((value, self.function_state(value, depth + 1)))
            return value
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
        """Did the last call leave anything behind? (Reseeds `random` and empties the
        allowed members' caches either way: `urlsplit.cache_info()` told whether an earlier
        caller had parsed a given URL.)

        Runs after every call, so it is `changed_slowly` laid out for speed (see
        `_prepare`): the same state compared, never less (a binding deleted and added back
        counts as a change here)."""
        self.reseed()
        for clear in self.cache_clearers:
            clear()
        if self.opaque:
            return True
        namespace = self.namespace
        if (len(namespace) != len(self.keys) or not all(map(_is, namespace.values(), self.values))
                or tuple(namespace) != self.keys):
            return True
        for value, copy in self.plain_pairs:
            if value != copy:  # built-in containers: `!=` is exactly `not ==`
                return True
        for value, copy in self.other_pairs:
            if not self.same(value, copy):
                return True
        if len(self.functions) != self.prepared_functions:
            return self.changed_slowly()  # `same` met a new function: compare everything
        for function in self.bare_functions:
            if function.__defaults__ is not None or function.__kwdefaults__ is not None:
                return True
        for function, state in self.stateful_functions:
            if not self.same_state(self.current_state(function), state):
                return True
        return self.has_process_state and bool(self.process() != self.fingerprint)

    def changed_slowly(self) -> bool:
        """The reference form of `changed`, one rule at a time (the tests hold the two to
        the same answers)."""
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
        for function, state in self.functions:
            if not self.same_state(self.current_state(function), state):
                return True
        return bool(self.process() != self.fingerprint)

    def same_state(self, current: tuple[Any, Any, tuple[Any, ...]],
                   copy: tuple[Any, Any, tuple[Any, ...]]) -> bool:
        if len(current[2]) != len(copy[2]):
            return False
        return (self.same(current[0], copy[0]) and self.same(current[1], copy[1])
                and all(self.same(a, b) for a, b in zip(current[2], copy[2], strict=True)))


def _holds_nothing(state: tuple[Any, Any, tuple[Any, ...]]) -> bool:
    """A function without defaults, keyword defaults or closure cells (its cells cannot be
    added later: `__closure__` is read-only)."""
    return state[0] is None and state[1] is None and not state[2]


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
            parts.append(csv.field_size_limit())
            for name in sorted(csv.list_dialects()):
                dialect = csv.get_dialect(name)
                parts.append((name, dialect.delimiter, dialect.quotechar, dialect.escapechar,
                              dialect.doublequote, dialect.skipinitialspace,
                              dialect.lineterminator, dialect.quoting, dialect.strict))
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
        ("string", ("Template",)),
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
