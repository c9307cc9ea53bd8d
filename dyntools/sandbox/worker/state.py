"""What a warm worker keeps between calls, and when it may not keep it (worker side).

A warm worker serves calls one after another, possibly for different callers, and no OS layer
separates them: only this check does. Whatever one call could store where a later call could
read it is either compared after each call, or makes the worker spent: the reply says so, the
worker ends after sending it and the host starts a fresh one. The check enumerates what it
*understands*; everything else is state it cannot compare, and a worker holding any of it is
spent after every call (`reasons` says what it met).

Right after the module body ran, `Walk` follows everything the tool can reach later:

- the tool's globals (every binding, compared by identity; the worker's own names are skipped
  only while they still hold the worker's own objects);
- every allowed member of the modules it imports, with the public attributes of their
  classes: process-wide state a call can change through them (`calendar.mdays`,
  `hashlib.algorithms_available`, `calendar.HTMLCalendar.cssclasses`); the namespace of each
  such class (every name, `_default_prefix` too) is compared by identity after each call;
- through containers (lists, dicts, sets, tuples, bytearrays, the `collections` types, keys
  included), functions (defaults, keyword defaults, closure cells), the objects bound to
  built-in and Python methods (`{}.setdefault` holds its dict), `functools.partial`s (the
  function, the arguments, the keywords), slices, typing aliases (their arguments), and the
  caches the worker empties after each call.

What it understands holds no state (numbers, strings, dates, classes, ...), is compared, or
is reset by the worker after each call (the global `random` generator is reseeded, the
current `decimal` context's flags cleared, the allowed members' `lru_cache`s emptied) or
fingerprinted (the `decimal` contexts, the
`calendar` first weekday, `csv`'s dialects). Anything else (an instance of a library class,
an iterator, a generator, a dict view, a tool-held cache, a module, anything nested deeper
than `MAX_DEPTH`) is not understood.

After each call (`changed`), every container met is compared with what it held after load,
item by item by identity and in order (a dict's keys re-inserted in another order carry
information, so do a set's), and so are the functions' defaults and closure cells, the
partials' parts and the process-wide fingerprints: a handful of C-level passes over what the
tool actually holds. An exception inside the check (MemoryError included) says "changed".
A set's or dict's items are not all its state: its hash table (size, deleted slots, a set's
pop position) decides the order later additions come out in, so every set and dict met as a
value is rebuilt to its canonical table after load and after each call that left it unchanged
(`Tables`). The lists, dicts and sets a library class keeps under private names (ipaddress's
netmask caches) are compared item by item too (`Walk.library_container`).

What this check cannot see is the process itself (the memory allocator's free lists, which
addresses come back next): callers that must not share it run with per-call isolation
(dyntools/sandbox/isolation.py).

The check relies on the Python layer's guards: a tool cannot write attributes (`_write_`) or
reach `__dict__`, `__defaults__` or `__closure__` (names starting with `_`), so an object
whose state changes only through such writes is understood by what it holds at load.
"""

from __future__ import annotations

import sys
from _operator import attrgetter, getitem, is_
from itertools import chain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

_MISSING = object()
MAX_DEPTH = 50  # nesting the walk follows; anything deeper is not understood
MAX_OBJECTS = 100_000  # containers, functions and classes one walk may visit
HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class whose attributes can be changed at run time
IMMUTABLETYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: a heap type whose attributes cannot

_defaults = attrgetter("__defaults__")
_kwdefaults = attrgetter("__kwdefaults__")
_cell_contents = attrgetter("cell_contents")
_partial_parts = (attrgetter("func"), attrgetter("args"), attrgetter("keywords"))
_default_factory = attrgetter("default_factory")


def _function_kind() -> type:
    return type(_function_kind)


FunctionType = _function_kind()
BuiltinFunctionType = type(len)
ModuleType = type(sys)
MethodDescriptorType = type(str.join)
MemberDescriptorType = type(FunctionType.__dict__["__globals__"])
GetSetDescriptorType = type(FunctionType.__dict__["__code__"])


class _Probe:
    def method(self) -> None:
        """A Python method, to name the type of a bound one."""


MethodType = type(_Probe().method)

# Kinds whose values hold no state a call can change and refer to nothing that does.
# (`object()`, a sentinel, has no attributes at all; the descriptors are what a class's
# namespace holds for its slots, getters and C methods. A module is never a tool's value while
# the Python layer is on (the import guard hands out views, every guard refuses modules); the
# state an allowed one holds is walked through its members. With the Python layer off, as
# some tests run, its modules are the real ones.)
ATOMS: frozenset[type] = frozenset({
    str, bytes, int, float, complex, bool, type(None), type(Ellipsis), type(NotImplemented),
    range, object, MethodDescriptorType, MemberDescriptorType, GetSetDescriptorType,
    ModuleType,
})

# Library kinds that are values: immutable once made (their attributes are read-only, or
# written only through attribute writes, which tools cannot make), referring to nothing
# mutable. Looked up in the modules already loaded: a tool that did not import one cannot
# hold its values.
LIBRARY_ATOMS = (
    ("datetime", ("date", "datetime", "time", "timedelta", "timezone", "tzinfo")),
    ("decimal", ("Decimal",)),
    ("fractions", ("Fraction",)),
    ("zoneinfo", ("ZoneInfo",)),
    ("uuid", ("UUID",)),
    ("ipaddress", ("IPv4Address", "IPv6Address")),
    ("re", ("Pattern", "RegexFlag")),
    ("statistics", ("NormalDist",)),
    ("unicodedata", ("UCD",)),
    ("_collections", ("_tuplegetter",)),  # a named tuple's field: a descriptor
)
# Library kinds whose state is their instance `__dict__`, written only at creation or as a
# cache of values derived from the object itself (`ipaddress` networks' cached properties):
# walked at load for what they refer to, not compared after each call.
LIBRARY_RECORDS = (
    ("ipaddress", ("IPv4Network", "IPv6Network", "IPv4Interface", "IPv6Interface")),
    ("string", ("Template",)),
    ("calendar", ("_localized_day", "_localized_month")),  # calendar.day_name and friends
)


# Private class attributes holding a container that the walk leaves to the namespace
# comparison: `enum`'s map of values to members gains a pseudo-member the first time a
# combination of flags is made (`re.I | re.M`), made from the value alone (its name and value
# follow from the flags), so it holds nothing of a caller; comparing it would spend the
# worker of every tool that combines flags.
LIBRARY_KEPT = frozenset({"_value2member_map_"})

# A class's own text, set when the class statement ran: compared by equality only.
CLASS_METADATA = frozenset({"__module__", "__qualname__", "__doc__"})
OBJECT_EQUALITY: object = object.__eq__  # equality that is identity


def strict_names(space: Mapping[str, Any]) -> list[str]:
    """The names of a class namespace whose values are compared by identity as well as by
    equality: those whose class defines its own equality (an int, a str, a tuple, a
    timezone), but the class's own text."""
    return [name for name, value in space.items() if name not in CLASS_METADATA
            and getattr(type(value), "__eq__", None) is not OBJECT_EQUALITY]


class NotWalked:
    """The state of a worker whose module body has not been walked (yet, or the walk could
    not be built): every call spends the worker."""

    opaque = True
    reasons = ("the tool's module state was not walked",)

    def forget(self) -> None:
        return None

    def changed(self, forget: bool = True) -> bool:
        return True


class ModuleState:
    """The tool's state after load, and the per-call comparison with it.

    `namespace`: the tool module's globals. `own`: the names the worker put there and the
    objects it put under them (builtins, guards); a name is skipped only while it still holds
    that object. `own_objects`: the worker's objects a tool may hold (its `print`, the import
    guard, the hardened `copy` members, the `host` stubs): understood as they are. `members`:
    the allowed members of the modules the tool imports (walked for process-wide state).
    `module_view_type`: the import guard's views (their members are in `members`).
    `clear_tool_caches`: empty the `lru_cache`s the tool made (their wrapped function is
    its own) after each call, and understand them (the worker turns it on: the gate accepts
    functools.lru_cache and functools.cache on a tool's helpers)."""

    def __init__(self, namespace: dict[str, Any], *, own: Mapping[str, Any] | None = None,
                 own_objects: Iterable[Any] = (), members: Iterable[Any] = (),
                 module_view_type: type | None = None, clear_tool_caches: bool = False) -> None:
        self.namespace = namespace
        self.reasons: list[str] = []
        self.walk: Walk | None = None
        try:
            self._load(namespace, own or {}, own_objects, members, module_view_type,
                       clear_tool_caches)
        except BaseException as exc:  # fail closed: a walk that broke understood nothing
            self.reasons.append(f"the state walk failed ({type(exc).__name__})")
            self.walk = None
        self.opaque = bool(self.reasons)

    def _load(self, namespace: dict[str, Any], own: Mapping[str, Any],
              own_objects: Iterable[Any], members: Iterable[Any],
              module_view_type: type | None, clear_tool_caches: bool) -> None:
        self.keys = tuple(namespace)
        self.values = tuple(namespace.values())
        known: dict[int, Any] = {}
        for value in own_objects:
            known[id(value)] = value
        for value in own.values():
            known[id(value)] = value
        for value in _reset_objects():
            known[id(value)] = value
        atoms: set[type] = set(ATOMS)
        if module_view_type is not None:
            atoms.add(module_view_type)
        walk = Walk(known, frozenset(atoms), self.reasons, clear_tool_caches, namespace)
        self.walk = walk
        walk.in_members = True
        for value in members:
            walk.value(value, 0, "an allowed member")
        walk.in_members = False
        for name, value in namespace.items():
            if name in own and own[name] is value:
                continue  # the worker's own name, still holding the worker's own object
            walk.value(value, 0, name)
        self.reset = _resetter()
        self.reset()
        self.process = _process_state()
        self.fingerprint = self.process()
        self.clearers = [cache.cache_clear for cache in walk.caches]
        # Every set and dict met as a value gets its canonical table now and after each call
        # that left it unchanged (`Tables`): what its table held is no channel.
        self.tables = Tables(walk.tables)
        self.tables.rebuild()
        self.sized, self.iterables, self.reads = walk.per_call()
        self.lengths = tuple(map(len, self.sized))
        self.loaded = tuple(self.objects())
        self.arrays = tuple(walk.bytearrays)
        self.array_copies = tuple(map(bytes, self.arrays))
        # Class namespaces: one C-level comparison of each with a copy made now (names and
        # values, by equality after identity), then by identity the values whose equality
        # is their own (`strict_names`): an equal replacement may still tell something.
        self.class_spaces = tuple(walk.classes)
        self.class_copies = tuple(map(dict, self.class_spaces))
        self.strict_spaces = tuple(space for space in self.class_spaces
                                   for _ in strict_names(space))
        self.strict_names = tuple(name for space in self.class_spaces
                                  for name in strict_names(space))
        self.strict_values = tuple(map(getitem, self.strict_spaces, self.strict_names))
        self.has_process_state = bool(self.fingerprint)

    def objects(self) -> Iterable[Any]:
        """Everything compared by identity, in one pass (`Walk.per_call`)."""
        if self.reads:
            return chain(*self.iterables, *[map(read, group) for read, group in self.reads])
        return chain(*self.iterables)

    def forget(self) -> None:
        """Reset what the worker resets after each call and empty the caches it clears. The
        worker calls it while the call's window is still open (`Worker.close_window`): what
        the caches release of the call may finalize tool code, which must run as the call's."""
        self.reset()
        for clear in self.clearers:
            clear()

    def changed(self, forget: bool = True) -> bool:
        """Did the last call leave anything behind? (With `forget`, resets what the worker
        resets and empties the caches it clears first.) Any exception inside says yes."""
        try:
            if forget:
                self.forget()
            if self.opaque:
                return True
            # Every length first: with them equal, the two passes below line up item by item.
            if tuple(map(len, self.sized)) != self.lengths:
                return True
            if not all(map(is_, self.objects(), self.loaded)):
                return True
            if self.arrays and tuple(map(bytes, self.arrays)) != self.array_copies:
                return True
            if self.class_spaces != self.class_copies or not all(map(
                    is_, map(getitem, self.strict_spaces, self.strict_names),
                    self.strict_values)):
                return True
            if self.has_process_state and self.process() != self.fingerprint:
                return True
            self.tables.rebuild()  # unchanged: back to the tables the next caller must meet
            return False
        except BaseException:  # fail closed
            return True

    def changed_slowly(self) -> bool:
        """The reference form of `changed`: every name looked up again, and everything the
        walk registered read again one object at a time (`Walk.image`), compared with what
        the same reading gave after load (the tests hold the two to the same answers)."""
        try:
            if self.opaque or self.walk is None:
                return True
            namespace = self.namespace
            if len(namespace) != len(self.keys):
                return True
            for name, value in zip(self.keys, self.values, strict=True):
                if namespace.get(name, _MISSING) is not value:
                    return True
            if self.walk.image() != self.walk.loaded_image:
                return True
            return bool(self.process() != self.fingerprint)
        except BaseException:  # fail closed
            return True


class Walk:
    """Everything reachable from the tool's state, sorted into what the per-call check
    compares; `reasons` gets a line for each thing it does not understand."""

    def __init__(self, known: dict[int, Any], atoms: frozenset[type], reasons: list[str],
                 clear_tool_caches: bool, namespace: dict[str, Any]) -> None:
        self.known = known
        self.atoms = atoms
        self.reasons = reasons
        self.clear_tool_caches = clear_tool_caches
        self.namespace = namespace
        self.seen: dict[int, Any] = {}
        self.sequences: list[Any] = []  # lists and deques
        self.mappings: list[Any] = []  # dicts and their subclasses
        self.sets: list[Any] = []
        self.tables: list[Any] = []  # the sets and dicts met as values: rebuilt (`Tables`)
        self.bytearrays: list[Any] = []
        self.factories: list[Any] = []  # defaultdicts
        self.cells: list[Any] = []
        self.functions: list[Any] = []  # the tool's own: defaults re-read after each call
        self.partials: list[Any] = []
        self.caches: list[Any] = []  # lru_cache wrappers the worker empties after each call
        self.classes: list[Any] = []  # the namespaces (mappingproxy) of the classes met
        self.class_ids: set[int] = set()
        self.library_atoms, self.records = _library_kinds()
        self.rules: dict[type, Callable[[Any, int], None]] = _rules(self)
        self.aliases = _alias_kinds()
        self.cache_kind = _cache_kind()
        self.in_members = False  # walking the allowed members (library state), not the tool's

    # -- the walk ----------------------------------------------------------------------------

    def value(self, value: Any, depth: int, where: str) -> None:
        kind = type(value)
        if kind in self.atoms or kind in self.library_atoms:
            return
        key = id(value)
        if key in self.known or key in self.seen:
            return
        if depth > MAX_DEPTH or len(self.seen) >= MAX_OBJECTS:
            self.refuse(f"{where}: nested deeper than {MAX_DEPTH} levels or too large to "
                        "compare")
            return
        self.seen[key] = value
        rule = self.rules.get(kind)
        if rule is not None:
            rule(value, depth + 1)
        elif issubclass(kind, type):
            self.klass(value, depth + 1)
        elif kind in self.records:
            self.record(value, depth + 1)
        elif kind in self.aliases:
            self.alias(value, depth + 1)
        elif kind is self.cache_kind:
            self.cache(value, depth + 1, where)
        elif issubclass(kind, BuiltinFunctionType):
            self.builtin(value, depth + 1)  # a method of a C class made at run time
        elif issubclass(kind, tuple) and not hasattr(value, "__dict__"):
            self.items(value, depth + 1)  # a named tuple or struct_time: its items
        else:
            self.refuse(f"{where}: a {kind.__name__} object, whose state the check cannot "
                        "compare")

    def refuse(self, reason: str) -> None:
        if len(self.reasons) < 20:
            self.reasons.append(reason)

    def items(self, values: Iterable[Any], depth: int) -> None:
        for item in values:
            self.value(item, depth, "an item")

    def sequence(self, value: Any, depth: int) -> None:
        self.sequences.append(value)
        self.items(value, depth)

    def mapping(self, value: Any, depth: int) -> None:
        self.mappings.append(value)
        self.tables.append(value)
        self.items(value, depth)  # keys: a hashable object may hold state too
        self.items(dict.values(value), depth)

    def defaultdict(self, value: Any, depth: int) -> None:
        self.factories.append(value)
        self.value(value.default_factory, depth, "a default factory")
        self.mapping(value, depth)

    def set(self, value: Any, depth: int) -> None:
        self.sets.append(value)
        self.tables.append(value)
        self.items(value, depth)

    def bytearray(self, value: Any, depth: int) -> None:
        self.bytearrays.append(value)

    def function(self, value: Any, depth: int) -> None:
        """Defaults, keyword defaults and closure cells: what a function carries from call
        to call. The tool's own are re-read after each call (their code is the tool's)."""
        if value.__globals__ is self.namespace:
            self.functions.append(value)
        defaults = value.__defaults__
        if defaults is not None:
            self.items(defaults, depth)
        kwdefaults = value.__kwdefaults__
        if kwdefaults is not None:
            self.value(kwdefaults, depth, "keyword defaults")
        for cell in value.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:
                self.refuse(f"function {value.__qualname__!r} has an empty closure cell")
                continue
            self.cells.append(cell)
            self.value(contents, depth, f"a closure cell of {value.__qualname__!r}")

    def builtin(self, value: Any, depth: int) -> None:
        """A built-in function, or a built-in method bound to an object (`{}.setdefault`):
        that object is the state."""
        bound = value.__self__
        if bound is not None and type(bound) is not ModuleType:
            self.value(bound, depth, f"the object bound to {value.__name__!r}")

    def method(self, value: Any, depth: int) -> None:
        self.value(value.__func__, depth, "a method's function")
        self.value(value.__self__, depth, f"the object bound to {value.__func__.__name__!r}")

    def partial(self, value: Any, depth: int) -> None:
        self.partials.append(value)
        self.value(value.func, depth, "a partial's function")
        self.items(value.args, depth)
        self.value(value.keywords, depth, "a partial's keywords")
        self.value(value.__dict__, depth, "a partial's attributes")

    def slice(self, value: Any, depth: int) -> None:
        self.items((value.start, value.stop, value.step), depth)

    def klass(self, value: Any, depth: int) -> None:
        """A class whose attributes can change (a built-in type's cannot): its namespace,
        every name included (`difflib.HtmlDiff._default_prefix` counts the tables made), is
        compared after each call (`classes`, `ModuleState.changed`), and what its public
        attributes hold is walked like any value."""
        for klass in getattr(value, "__mro__", ()):
            flags = getattr(klass, "__flags__", 0)
            if not flags & HEAPTYPE or flags & IMMUTABLETYPE or id(klass) in self.known:
                continue
            if id(klass) not in self.class_ids:
                self.class_ids.add(id(klass))
                self.classes.append(vars(klass))
            for name, attribute in list(vars(klass).items()):
                if not name.startswith("_"):
                    self.value(attribute, depth, f"{value.__name__}.{name}")
                elif name not in LIBRARY_KEPT:
                    self.library_container(attribute)

    def library_container(self, value: Any) -> None:
        """A list, dict or set under a private name of a library class (`ipaddress`'s
        `_BaseV4._netmask_cache`): no tool reaches it by name, but library code fills it on
        a tool's behalf. Its items are compared by identity and in order after each call
        (the namespace comparison sees only that the name still holds the same container);
        the worker empties the caches among them (sandbox/worker/caches.py) before it looks,
        so one that still changed spends the worker. Not rebuilt: the library's own."""
        kind = type(value)
        if id(value) in self.seen or kind not in (list, dict, set):
            return
        self.seen[id(value)] = value
        {list: self.sequences, dict: self.mappings, set: self.sets}[kind].append(value)

    def record(self, value: Any, depth: int) -> None:
        self.items(vars(value).values(), depth)

    def alias(self, value: Any, depth: int) -> None:
        for name in ("__origin__", "__args__", "__metadata__", "__bound__", "__constraints__"):
            part = getattr(value, name, None)
            if type(part) is tuple:
                self.items(part, depth)
            else:
                self.value(part, depth, f"a typing form's {name}")

    def descriptor(self, value: Any, depth: int) -> None:
        """classmethod, staticmethod, property in a class's namespace: the functions."""
        for name in ("__func__", "fget", "fset", "fdel", "func"):
            inner = getattr(value, name, None)
            if inner is not None:
                self.value(inner, depth, "a descriptor's function")

    def cache(self, value: Any, depth: int, where: str) -> None:
        """An `lru_cache` wrapper remembers every call's arguments and answers. The allowed
        members' are emptied after each call; so are the tool's own when
        `clear_tool_caches` is on. Any other is not understood."""
        wrapped = getattr(value, "__wrapped__", None)
        tools = (self.clear_tool_caches
                 and getattr(wrapped, "__globals__", None) is self.namespace)
        if not self.in_members and not tools:
            self.refuse(f"{where}: a cache (lru_cache) that the worker does not empty")
            return
        self.caches.append(value)
        self.value(wrapped, depth, "a cached function")

    # -- the per-call check ------------------------------------------------------------------

    def per_call(self) -> tuple[tuple[Any, ...], tuple[Any, ...],
                                tuple[tuple[Callable[[Any], Any], tuple[Any, ...]], ...]]:
        """What `ModuleState.changed` reads after each call: the objects whose lengths it
        compares (the namespace and every container met); the live iterables it reads in
        one pass (the namespace's names and values, every container's items in order, each
        dict's keys and values: iterating a dict or a view of it reads it as it is now); and
        the parts it reads off objects (`read`, `objects`): the closure cells' contents, the
        tool's functions' defaults, the partials' parts, the default factories. Everything
        is compared by identity with what the same pass read after load; with every length
        equal, the two passes line up."""
        namespace = self.namespace
        containers = (*self.sequences, *self.sets, *self.mappings)
        iterables = (namespace, namespace.values(), *containers,
                     *[dict.values(mapping) for mapping in self.mappings])
        func, args, keywords = _partial_parts
        reads = tuple((read, tuple(group)) for group, parts in (
            (self.cells, (_cell_contents,)), (self.functions, (_defaults, _kwdefaults)),
            (self.partials, (func, args, keywords)), (self.factories, (_default_factory,)))
            if group for read in parts)
        self.loaded_image = self.image()
        return (namespace, *containers), iterables, reads

    def image(self) -> list[_Same]:
        """Everything the per-call check compares, read again one object at a time: the
        reference form (`ModuleState.changed_slowly`)."""
        image: list[tuple[str, Any]] = []
        for value in self.sequences:
            image.append(("len", len(value)))
            image += [("is", item) for item in value]
        for value in self.sets:
            image.append(("len", len(value)))
            image += [("is", item) for item in value]
        for value in self.mappings:
            image.append(("len", len(value)))
            for key in value:
                image.append(("is", key))
            image += [("is", item) for item in dict.values(value)]
        for space in self.classes:
            image.append(("==", dict(space)))
            image += [("is", space[key]) for key in strict_names(space)]
        image += [("==", bytes(value)) for value in self.bytearrays]
        image += [("is", value.default_factory) for value in self.factories]
        for value in self.partials:
            image += [("is", value.func), ("is", value.args), ("is", value.keywords)]
        for cell in self.cells:
            try:
                image.append(("is", cell.cell_contents))
            except ValueError:
                image.append(("empty", None))
        for function in self.functions:
            image += [("is", function.__defaults__), ("is", function.__kwdefaults__)]
        return [_Same(entry) for entry in image]


class Tables:
    """The sets and dicts the walk met as values, each with the items it held after load, in
    the order they were first inserted here; `rebuild()` gives each its canonical table again.

    A hash table holds more than its items: its size (a set's or dict's table grows as items
    are added and never shrinks as they are discarded), its deleted slots, and a set's
    `pop()` position. A set's iteration order follows from them, so a caller that grows a
    table, or adds and discards an item, and leaves the same items in the same order, still
    hands the next caller bits through the order in which its additions come out. Comparing
    the table's size would miss the deleted slots and the pop position; rebuilding does not:
    emptied (a fresh minimal table), the pop position set by popping one item from that
    fresh table, then refilled with the same items in the same order, a table is the same
    whatever the calls before did. A dict's iteration order is its insertion order, so only
    its size and deleted slots are reset (they still decide when it resizes). Called only on
    containers whose items are unchanged, by identity and order, after the call (otherwise
    the worker is spent anyway); the items are held here, so emptying frees nothing."""

    __slots__ = ("entries", "ordered")

    def __init__(self, containers: Iterable[Any]) -> None:
        entries: list[tuple[Any, tuple[Any, ...]]] = []
        for container in containers:
            kind = type(container)
            entries.append((container, tuple(container) if kind is set
                            else tuple(kind.items(container))))
        self.entries = tuple(entries)
        self.ordered = _ordered_dict_kind()

    def rebuild(self) -> None:
        for container, items in self.entries:
            kind = type(container)
            if kind is set:
                _rebuild_set(container, items)
            elif kind is self.ordered:
                container.clear()  # its order is its own linked list: its own methods
                for key, item in items:
                    container[key] = item
            else:  # dict, Counter, defaultdict: a dict's table, refilled by dict's own update
                dict.clear(container)
                dict.update(container, items)


def _rebuild_set(value: set[Any], items: tuple[Any, ...]) -> None:
    value.clear()
    value.add(0)
    value.pop()  # from a fresh 8-slot table: the pop position is the slot after 0's, always
    value.clear()  # and the slot 0 left behind is gone
    value.update(items)  # in the load-time order, as `add` one by one would


def _ordered_dict_kind() -> type | None:
    collections = sys.modules.get("collections")
    return getattr(collections, "OrderedDict", None) if collections is not None else None


class _Same:
    """One entry of an image, compared as `Walk.checks` compares it (by identity)."""

    __slots__ = ("how", "what")

    def __init__(self, entry: tuple[str, Any]) -> None:
        self.how, self.what = entry

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Same) or self.how != other.how:
            return False
        return bool(self.what == other.what) if self.how in ("==", "len") else (
            self.what is other.what)

    __hash__ = None  # type: ignore[assignment]


def _rules(walk: Walk) -> dict[type, Callable[[Any, int], None]]:
    rules: dict[type, Callable[[Any, int], None]] = {
        list: walk.sequence, dict: walk.mapping, set: walk.set,
        tuple: walk.items, frozenset: walk.items, bytearray: walk.bytearray,
        FunctionType: walk.function, BuiltinFunctionType: walk.builtin,
        MethodType: walk.method, slice: walk.slice,
        classmethod: walk.descriptor, staticmethod: walk.descriptor,
        property: walk.descriptor,
    }
    collections = sys.modules.get("collections")
    if collections is not None:
        rules.update({collections.deque: walk.sequence, collections.Counter: walk.mapping,
                      collections.OrderedDict: walk.mapping,
                      collections.defaultdict: walk.defaultdict})
    functools = sys.modules.get("functools")
    if functools is not None:
        rules[functools.partial] = walk.partial
        rules[functools.cached_property] = walk.descriptor
    return rules


def _library_kinds() -> tuple[frozenset[type], frozenset[type]]:
    found: list[set[type]] = [set(), set()]
    for table, into in ((LIBRARY_ATOMS, found[0]), (LIBRARY_RECORDS, found[1])):
        for module_name, names in table:
            module = sys.modules.get(module_name)
            for name in names:
                kind = getattr(module, name, None) if module is not None else None
                if isinstance(kind, type):
                    into.add(kind)
    return frozenset(found[0]), frozenset(found[1])


def _alias_kinds() -> frozenset[type]:
    """typing's forms and aliases (`typing.List[int]`, `int | None`, `Annotated[...]`,
    `typing.AnyStr`): values whose state is what they were made of (their arguments)."""
    kinds: set[type] = {type(list[int]), type(int | None)}
    typing = sys.modules.get("typing")
    if typing is not None:
        kinds.update(type(value) for value in vars(typing).values()
                     if type(value).__module__ == "typing" and not isinstance(value, type))
        samples = [typing.List[int], typing.Union[int, str], typing.Callable[[int], str],
                   typing.Literal[1], typing.Annotated[int, 1], typing.Tuple[int]]
        kinds.update(type(sample) for sample in samples)
    return frozenset(kinds)


def _cache_kind() -> type | None:
    functools = sys.modules.get("functools")
    kind = getattr(functools, "_lru_cache_wrapper", None)
    return kind if isinstance(kind, type) else None


def _reset_objects() -> list[Any]:
    """Library objects the tool can reach whose state the worker resets or fingerprints after
    each call: the global `random` generator (reseeded), `calendar`'s shared calendar (its
    first weekday), the `decimal` contexts."""
    found: list[Any] = []
    random = sys.modules.get("random")
    if random is not None:
        found.append(random._inst)
    calendar = sys.modules.get("calendar")
    if calendar is not None:
        found.append(calendar.c)
    decimal = sys.modules.get("decimal")
    if decimal is not None:
        found += [decimal.getcontext(), decimal.DefaultContext, decimal.BasicContext,
                  decimal.ExtendedContext]
    return found


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
            for name in csv.list_dialects():  # in the registry's order: a tool reads it
                dialect = csv.get_dialect(name)
                parts.append((name, dialect.delimiter, dialect.quotechar, dialect.escapechar,
                              dialect.doublequote, dialect.skipinitialspace,
                              dialect.lineterminator, dialect.quoting, dialect.strict))
        return tuple(parts)

    return read


def _resetter() -> Callable[[], None]:
    """What the worker resets after each call rather than compare: the global `random`
    generator (reseeded from the OS: what one caller seeded is never what the next one
    draws), and the flags of the current `decimal` context (an inexact division sets
    `Inexact`; a later caller could read it; its traps and precision stay compared)."""
    random = sys.modules.get("random")
    decimal = sys.modules.get("decimal")
    seed: Callable[[], None] = random.seed if random is not None else _nothing
    if decimal is None:
        return seed
    getcontext = decimal.getcontext

    def reset() -> None:
        seed()
        getcontext().clear_flags()

    return reset


def _nothing() -> None:
    return None
