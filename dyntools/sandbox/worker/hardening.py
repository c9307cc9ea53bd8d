"""Allowed library callables made safe for tool code (worker side, before any tool code runs).

The guards check what a tool reads and what calls return. Some allowed callables are unsafe
for what they do *inside*, whatever comes back, so the worker replaces or narrows them:

- `hash`: for an identity-hashed object it is the object's address rotated by four bits, and an
  address is the key of every identity-keyed table (`deepcopy`'s memo was one). A built-in
  method's hash mixes in the address of the object it is bound to (`hash([].append)`).
  `safe_hash` answers only for kinds whose hash is computed from their value (numbers,
  strings, bytes, dates, Decimals, UUIDs, addresses, tuples and frozensets of them, ...),
  named by their `__hash__`; any other kind is refused, known or not.
- `copy.copy` / `copy.deepcopy`: the real ones take a caller-supplied memo keyed by `id()`,
  leave internals (the state dicts of what they copied) among its values, and call the
  object's own `__reduce_ex__` and then `setattr(obj, name, value)` by string, which wrote
  `__code__` onto a tool function. `DataCopier` copies data (the built-in containers and the
  allowed collection types, recursively) and returns immutable values as they are; anything
  else is a `TypeError`. It takes no memo and calls no hook of the object.
- `typing`: subscripting an alias with a string (`typing.List["expr"]`) compiles `expr` into a
  `ForwardRef` (code the RestrictedPython policy never transformed), and calling an alias
  (`typing.Annotated[f, 0]()`) writes `__orig_class__` onto whatever `f` returned. Strings are
  refused as type arguments (except in the body of a module being imported), and calling an
  alias returns its origin's result untouched.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the worker must not pay for importing typing
    from collections.abc import Callable
    from typing import Any

_object_hash: Any = object.__hash__
_CONTAINER_HASHES = frozenset({tuple.__hash__, frozenset.__hash__})  # hash of the items
# Library kinds hashed by value, looked up in the modules loaded when a tool first hashes.
VALUE_HASHED = (
    ("decimal", ("Decimal",)), ("fractions", ("Fraction",)),
    ("datetime", ("date", "datetime", "time", "timedelta", "timezone")),
    ("uuid", ("UUID",)), ("re", ("Pattern",)), ("enum", ("Enum",)),
    ("ipaddress", ("IPv4Address", "IPv6Address", "IPv4Network", "IPv6Network",
                   "IPv4Interface", "IPv6Interface")),
)
_value_hashes: set[Any] = set()


def _identity_hashed(value: Any) -> bool:
    return type(value).__hash__ is _object_hash


def _hashed_by_value() -> set[Any]:
    if not _value_hashes:
        import sys

        found: set[Any] = {kind.__hash__ for kind in (int, float, complex, str, bytes, range)}
        for module_name, names in VALUE_HASHED:
            module = sys.modules.get(module_name)
            for name in names:
                kind = getattr(module, name, None) if module is not None else None
                if isinstance(kind, type):
                    found.add(kind.__hash__)
        found.discard(_object_hash)
        found.discard(None)
        _value_hashes.update(found)
    return _value_hashes


def safe_hash(value: Any, /) -> int:
    """`hash()` for values; anything whose hash is not computed from its value (an address,
    or a hash we do not know) is refused."""
    by_value = _hashed_by_value()
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        method = kind.__hash__
        if method in _CONTAINER_HASHES:  # tuples, frozensets, named tuples: their items
            stack.extend(item)
        elif method is None:
            return hash(item)  # unhashable (a list, a dict): Python's own TypeError
        elif method not in by_value:
            raise TypeError(f"hash() of a {kind.__name__} object is not a value's hash (it "
                            "may reveal an address); tools may hash values only: numbers, "
                            "strings, bytes, dates, Decimals, tuples of them, ...")
    return hash(value)


class DataCopier:
    """`copy` and `deepcopy` for data: no memo from the caller, no hook of the object called."""

    def __init__(self) -> None:
        import sys

        # Types of modules the tool did not import cannot reach it: only loaded ones are
        # looked up (importing decimal and fractions here cost the cold call milliseconds).
        immutable: set[type] = {
            type(None), bool, int, float, complex, str, bytes, range, slice,
            type(Ellipsis), type(NotImplemented),
        }
        for module_name, names in (
            ("decimal", ("Decimal",)), ("fractions", ("Fraction",)),
            ("datetime", ("date", "datetime", "time", "timedelta", "timezone")),
        ):
            module = sys.modules.get(module_name)
            if module is not None:
                immutable.update(getattr(module, name) for name in names)
        self.immutable = frozenset(immutable)
        collections = sys.modules.get("collections")
        missing = type("NotLoaded", (), {})  # matches no value's type
        self.counter: Any = getattr(collections, "Counter", missing)
        self.ordered: Any = getattr(collections, "OrderedDict", missing)
        self.default: Any = getattr(collections, "defaultdict", missing)
        self.deque: Any = getattr(collections, "deque", missing)

    def refuse(self, value: Any) -> Any:
        raise TypeError(f"copy of a {type(value).__name__} object is not supported in tools: "
                        "copy and deepcopy copy data (numbers, strings, lists, dicts, sets, "
                        "tuples, Counter, deque, defaultdict, OrderedDict, dates, Decimals)")

    def shallow(self, value: Any) -> Any:
        kind = type(value)
        if kind in self.immutable or kind is tuple or kind is frozenset:
            return value
        if kind is list:
            return list(value)
        if kind is dict:
            return dict(value)
        if kind is set:
            return set(value)
        if kind is bytearray:
            return bytearray(value)
        if kind in self.mappings():
            return self.rebuild(value, list(value.items()))
        if kind is self.deque:
            return self.rebuild(value, list(value))
        return self.refuse(value)

    def mappings(self) -> tuple[type, ...]:
        return (self.counter, self.ordered, self.default)

    def rebuild(self, value: Any, contents: list[Any]) -> Any:
        kind = type(value)
        if kind is self.counter:
            return self.counter(dict(contents))
        if kind is self.ordered:
            return self.ordered(contents)
        if kind is self.default:
            return self.default(value.default_factory, contents)
        if kind is self.deque:
            return self.deque(contents, value.maxlen)
        return self.refuse(value)

    def deep(self, value: Any) -> Any:
        # A cycle is copied as a cycle; the table is ours, keyed by id, and never leaves here.
        memo: dict[int, Any] = {}
        return self._deep(value, memo, 0)

    def _deep(self, value: Any, memo: dict[int, Any], depth: int) -> Any:
        kind = type(value)
        if kind in self.immutable:
            return value
        if depth > 1000:
            raise RecursionError("deepcopy: the data is nested more than 1,000 levels deep")
        key = id(value)
        if key in memo:
            return memo[key]
        depth += 1
        if kind is list:
            copied: Any = []
            memo[key] = copied
            copied.extend([self._deep(item, memo, depth) for item in value])
            return copied
        if kind is dict:
            copied = {}
            memo[key] = copied
            for k, v in value.items():
                copied[self._deep(k, memo, depth)] = self._deep(v, memo, depth)
            return copied
        if kind is tuple:
            copied = tuple([self._deep(item, memo, depth) for item in value])
            return memo.setdefault(key, copied)
        if kind is set or kind is frozenset:
            copied = kind([self._deep(item, memo, depth) for item in value])
            memo[key] = copied
            return copied
        if kind is bytearray:
            copied = bytearray(value)
            memo[key] = copied
            return copied
        if kind in self.mappings():
            contents = [(self._deep(k, memo, depth), self._deep(v, memo, depth))
                        for k, v in value.items()]
        elif kind is self.deque:
            contents = [self._deep(item, memo, depth) for item in value]
        else:
            return self.refuse(value)
        copied = self.rebuild(value, contents)
        memo[key] = copied
        return copied

    def functions(self) -> tuple[Callable[..., Any], Callable[..., Any]]:
        shallow = self.shallow
        deep = self.deep

        def copy(x: Any, /) -> Any:
            """Shallow copy of data (lists, dicts, sets, Counter, deque, ...)."""
            return shallow(x)

        def deepcopy(x: Any, memo: None = None, /) -> Any:
            """Deep copy of data; a memo is not accepted."""
            if memo is not None:
                raise TypeError("deepcopy() takes no memo in tools")
            return deep(x)

        return copy, deepcopy


def refuse_string_annotations(typing: Any) -> None:
    """Patch the worker's `typing` so no string becomes a compiled `ForwardRef` and calling an
    alias writes nothing onto the object it returns (3.11's private names; a Python without
    them fails closed: the worker refuses to start a tool that imports typing)."""
    from dyntools.sandbox.worker.audit import importing

    original_convert = typing._type_convert

    def _type_convert(arg: Any, *args: Any, **kwargs: Any) -> Any:
        # A library module imported lazily during a call may use string annotations in its
        # body (importlib.resources.abc does): that is the library's code, not the tool's.
        if isinstance(arg, str) and not importing():
            raise TypeError("string type arguments (forward references) are not allowed "
                            "in tools: they are compiled as code")
        return original_convert(arg, *args, **kwargs)

    typing._type_convert = _type_convert

    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not self._inst:
            raise TypeError(f"Type {self._name} cannot be instantiated; "
                            f"use {self.__origin__.__name__}() instead")
        return self.__origin__(*args, **kwargs)

    typing._BaseGenericAlias.__call__ = __call__
