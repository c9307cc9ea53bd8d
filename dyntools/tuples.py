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
        from dyntools.tuples import NamedTuple

so the type checker reads typing's class, and at run time this one makes the same class
from the same body: `collections.namedtuple` of the annotated fields with the defaults given,
the body's methods, properties, docstring and class attributes added, the annotations kept
as written (strings). What typing refuses, this refuses the same way (a field without a
default after one with a default; overwriting `_make`, `__new__` and the namedtuple's other
machinery). tests/test_tuples.py holds the two to the same classes.
"""

from __future__ import annotations

import collections

TYPE_CHECKING = False  # not typing's: a check never imports typing (docs/gate.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["NamedTuple"]

# As typing's: what a body may not set, and what it sets that the class keeps its own of.
_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields",
                         "_field_defaults", "_make", "_replace", "_asdict", "_source"})
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
# Called with names known only at run time (the type checker reads typing's class instead).
_namedtuple: Any = collections.namedtuple


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
        made = _namedtuple(typename, list(annotations),
                           defaults=[namespace[f] for f in with_default],
                           module=namespace["__module__"])
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
    raise TypeError("dyntools.tuples.NamedTuple: write `class Name(NamedTuple): ...`")


NamedTuple.__mro_entries__ = lambda bases: (_Base,)  # type: ignore[attr-defined]
