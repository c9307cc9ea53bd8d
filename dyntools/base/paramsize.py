"""How much work a params value is for a validator, counted without recursion.

`params_units(value, limit)` counts every value (object, array, string, number, boolean,
null) as one unit and every character of a string or an object key as one more, stopping as
soon as the count passes `limit`; `TooDeep` when lists and dicts nest deeper than
MAX_PARAMS_DEPTH. A JSON text of N bytes holds at most N units, so a params cap in bytes is
also a cap in units.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
# How deep params may nest. The host and the worker encode and decode params with Python's
# json module, which recurses: 50,000 nested arrays raised RecursionError (a traceback in the
# CLI, exit 1). No sane tool takes params nested deeper than this.
MAX_PARAMS_DEPTH = 200

_SCALARS = frozenset({int, float, bool, type(None)})


class TooDeep(ValueError):
    """Lists and dicts nest deeper than MAX_PARAMS_DEPTH."""


def params_units(value: Any, limit: int, max_depth: int = MAX_PARAMS_DEPTH) -> int:
    """Units in `value` (see the module), or a number above `limit` once it is passed."""
    units = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        kind = type(item)
        if kind is dict:
            if depth > max_depth:
                raise TooDeep(f"params nest deeper than {max_depth} levels")
            units += 1
            if units + len(item) > limit:  # every member is at least one unit
                return units + len(item)
            for key, child in item.items():
                units += len(key) if type(key) is str else 1
                child_kind = type(child)
                if child_kind is str:  # scalars inline: a call's params are mostly these
                    units += 1 + len(child)
                elif child_kind in _SCALARS:
                    units += 1
                else:
                    push((child, depth + 1))
        elif kind is list or kind is tuple:
            if depth > max_depth:
                raise TooDeep(f"params nest deeper than {max_depth} levels")
            units += 1
            if units + len(item) > limit:  # every item is at least one unit
                return units + len(item)
            if item and set(map(type, item)) <= _SCALARS:
                units += len(item)  # numbers, booleans, nulls: no walk needed
            else:
                for child in item:
                    push((child, depth + 1))
        elif kind is str:
            units += 1 + len(item)
        else:
            units += 1
        if units > limit:
            return units
    return units
