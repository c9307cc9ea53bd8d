"""`class Name(NamedTuple): ...` at a twentieth of typing's cost to create.

typing.NamedTuple checks every field's annotation when the class is made; in a module with
`from __future__ import annotations` each one is a string, and checking it compiles it into
a ForwardRef: ~0.35 ms for a class of five fields. A `dyntools check` made 15 such classes
on its way and a cold `dyntools call` about 30, 4-10 ms of their start-up
(bench/startup.py), to check annotations nothing reads at run time. The modules on those
paths write

    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from dyntools.base.tuples import NamedTuple

so the type checker reads typing's class, and at run time this one makes the same class
from the same body: `collections.namedtuple` of the annotated fields with the defaults given,
the body's methods, properties, docstring and class attributes added, the annotations kept
as written (strings). What typing refuses, this refuses the same way (a field without a
default after one with a default; overwriting `_make`, `__new__` and the namedtuple's other
machinery). tests/test_tuples.py holds the two to the same classes.
"""

from __future__ import annotations

import collections
import keyword
import sys
import types
from _collections import _tuplegetter

TYPE_CHECKING = False  # not typing's: a check never imports typing (docs/gate.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["NamedTuple", "namedtuple"]

# As typing's: what a body may not set, and what it sets that the class keeps its own of.
_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields",
                         "_field_defaults", "_make", "_replace", "_asdict", "_source"})
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
# `collections.namedtuple` compiles each class's __new__ from source (an eval, ~50 us of the
# ~90 us a class costs). These are the same functions for 0 to 16 fields, compiled once with
# this module's bytecode: `namedtuple` renames a template's parameters to the class's fields
# (error messages and keywords read those names) and gives it the class's defaults.
_tuple_new = tuple.__new__
_NEW = (
    lambda _cls: _tuple_new(_cls, ()),
    lambda _cls, _0: _tuple_new(_cls, (_0,)),
    lambda _cls, _0, _1: _tuple_new(_cls, (_0, _1)),
    lambda _cls, _0, _1, _2: _tuple_new(_cls, (_0, _1, _2)),
    lambda _cls, _0, _1, _2, _3: _tuple_new(_cls, (_0, _1, _2, _3)),
    lambda _cls, _0, _1, _2, _3, _4: _tuple_new(_cls, (_0, _1, _2, _3, _4)),
    lambda _cls, _0, _1, _2, _3, _4, _5: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5)),
    lambda _cls, _0, _1, _2, _3, _4, _5, _6: _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6)),
    (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7:
     _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7))),
    (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8:
     _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8))),
    (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9:
     _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9))),
    (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10:
     _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10))),
    (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11:
     _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11))),
    (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12:
     _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12))),
    (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13:
     _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13))),
    (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14:
     _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14))),
    (lambda _cls, _0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15:
     _tuple_new(_cls, (_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15))),
)


def namedtuple(typename: str, fields: list[str], defaults: list[Any], module: str) -> Any:
    """`collections.namedtuple(typename, fields, defaults=defaults, module=module)`: the same
    class (tests/test_tuples.py holds them to it), without compiling its __new__."""
    names = [typename, *fields]
    if (len(fields) >= len(_NEW) or len(set(fields)) != len(fields) or len(defaults) > len(fields)
            or any(not name.isidentifier() or keyword.iskeyword(name) for name in names)
            or any(name.startswith("_") for name in fields)):  # its refusals and messages
        return collections.namedtuple(typename, fields, defaults=defaults, module=module)
    field_names = tuple(map(sys.intern, fields))
    count = len(field_names)
    arg_list = ", ".join(field_names) + ("," if count == 1 else "")
    repr_fmt = "(" + ", ".join(f"{name}=%r" for name in field_names) + ")"
    code = _NEW[count].__code__.replace(co_varnames=("_cls", *field_names), co_name="__new__",
                                        co_qualname="__new__")
    new: Any = types.FunctionType(code, {"_tuple_new": _tuple_new, "__builtins__": {},
                                         "__name__": f"namedtuple_{typename}"}, "__new__")
    new.__doc__ = f"Create new instance of {typename}({arg_list})"
    new.__defaults__ = tuple(defaults)
    field_defaults = dict(zip(field_names[count - len(defaults):], defaults, strict=True))

    def _make(cls: Any, iterable: Any) -> Any:
        result = _tuple_new(cls, iterable)
        if len(result) != count:
            raise TypeError(f"Expected {count} arguments, got {len(result)}")
        return result

    _make.__doc__ = f"Make a new {typename} object from a sequence or iterable"

    def _replace(self: Any, /, **kwds: Any) -> Any:
        result = self._make(map(kwds.pop, field_names, self))
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    _replace.__doc__ = (f"Return a new {typename} object replacing specified fields with new "
                        "values")

    def __repr__(self: Any) -> str:
        "Return a nicely formatted representation string"
        return str(self.__class__.__name__ + repr_fmt % self)

    def _asdict(self: Any) -> dict[str, Any]:
        "Return a new dict which maps field names to their values."
        return dict(zip(self._fields, self, strict=False))

    def __getnewargs__(self: Any) -> tuple[Any, ...]:
        "Return self as a plain tuple.  Used by copy and pickle."
        return tuple(self)

    for method in (new, _make, _replace, __repr__, _asdict, __getnewargs__):
        method.__qualname__ = f"{typename}.{method.__name__}"
        method.__annotations__ = {}  # unannotated, as collections' are
    namespace: dict[str, Any] = {
        "__doc__": f"{typename}({arg_list})",
        "__slots__": (),
        "_fields": field_names,
        "_field_defaults": field_defaults,
        "__new__": new,
        "_make": classmethod(_make),
        "_replace": _replace,
        "__repr__": __repr__,
        "_asdict": _asdict,
        "__getnewargs__": __getnewargs__,
        "__match_args__": field_names,
    }
    if sys.version_info >= (3, 13):  # copy.replace
        namespace["__replace__"] = _replace
    for index, name in enumerate(field_names):
        namespace[name] = _tuplegetter(index, sys.intern(f"Alias for field number {index}"))
    made = type(typename, (tuple,), namespace)
    made.__module__ = module
    return made


class _NamedTupleMeta(type):
    def __new__(mcs, typename: str, bases: tuple[type, ...], namespace: dict[str, Any],
                ) -> Any:
        if bases != (_Base,):
            raise TypeError("can only inherit from a NamedTuple type")
        annotations: dict[str, Any] = namespace.get("__annotations__", {})
        with_default: list[str] = []
        for field in annotations:
            if field in namespace:
                with_default.append(field)
            elif with_default:
                raise TypeError(f"Non-default namedtuple field {field} cannot follow "
                                f"default field{'s' if len(with_default) > 1 else ''} "
                                f"{', '.join(with_default)}")
        made = namedtuple(typename, list(annotations),
                          [namespace[f] for f in with_default], namespace["__module__"])
        made.__annotations__ = dict(annotations)
        for key, value in namespace.items():
            if key in _PROHIBITED:
                raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
            if key not in _SPECIAL and key not in made._fields:
                setattr(made, key, value)
        return made


_Base = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})


def NamedTuple(*args: Any, **kwargs: Any) -> Any:
    """Only the class form is made here (typing's functional form is not used in dyntools)."""
    raise TypeError("dyntools.base.tuples.NamedTuple: write `class Name(NamedTuple): ...`")


NamedTuple.__mro_entries__ = lambda bases: (_Base,)  # type: ignore[attr-defined]
