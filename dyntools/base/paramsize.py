"""How much work a params value is for a validator, counted without recursion.

`params_units(value, limit)` counts every value (object, array, string, number, boolean,
null) as one unit and every character of a string or an object key as one more, stopping as
soon as the count passes `limit`; `TooDeep` when lists and dicts nest deeper than
MAX_PARAMS_DEPTH. A JSON text of N bytes holds at most N units, so a params cap in bytes is
also a cap in units. `json_value_problem(value)` says why a value is not JSON data (a tuple,
bytes, NaN, an int too long to print), or None.
"""

from __future__ import annotations

import math
import sys
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


# Python's own limit on the digits of an int it turns into text (0: none): a larger int in
# params could not be encoded for the worker, nor by the tool.
_MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300
_TOO_MANY_DIGITS = 10**_MAX_INT_DIGITS
_JSON_SCALARS = frozenset({str, bool, type(None)})
_FLOATS, _INTS = frozenset({float}), frozenset({int})


def json_value_problem(value: Any) -> str | None:
    """None when `value` is JSON data as a decoder makes it: dicts with str keys, lists, str,
    int (at most Python's int digit limit), finite float, bool, None, each of exactly that
    type; else what is wrong, in a sentence. Walked without recursion; the caller bounds the
    size first (params_units).

    Threat: params reach a tool as the data they are. A tuple, bytes, a NaN or an int too
    long to print passed through `Dyntools.call` to the tool, which then saw values no JSON
    caller can send (and a result echoing them failed far from the cause); NaN and Infinity
    are not JSON at all."""
    stack: list[Any] = [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            for key, child in item.items():
                if type(key) is not str:
                    return f"params keys must be strings, not {type(key).__name__}"
                push(child)
        elif kind is list:
            if not item:
                continue
            kinds = set(map(type, item))
            # An array of one scalar type (the common large one) is checked at C speed.
            if kinds <= _JSON_SCALARS:
                continue
            if kinds == _FLOATS:
                # A NaN or an infinity makes the sum one; a finite sum means none is there
                # (an overflow of finite values makes it look at each).
                if not math.isfinite(sum(item)):
                    stack.extend(item)
                continue
            if kinds == _INTS:
                if max(map(int.bit_length, item)) > 3 * _MAX_INT_DIGITS:
                    stack.extend(item)
                continue
            stack.extend(item)
        elif kind is float:
            if not math.isfinite(item):
                return f"params may not hold {item!r}: it is not a JSON number"
        elif kind is int:
            if item.bit_length() > 3 * _MAX_INT_DIGITS and abs(item) >= _TOO_MANY_DIGITS:
                return f"params may not hold an integer of more than {_MAX_INT_DIGITS} digits"
        elif kind not in _JSON_SCALARS:
            return f"params may hold only JSON data, not {kind.__name__}"
    return None

