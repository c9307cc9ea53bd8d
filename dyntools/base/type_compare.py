"""`type(x) == int`: the one shape in which a tool may call the `type` builtin.

`type` is refused everywhere else: with three arguments it builds classes, and the class
it returns is a route to every other class. In a comparison whose other side is the name
of a builtin type (or a tuple of them), the class it returns is compared and dropped, never
held: `type(x) == int`, `type(x) is not str`, `type(x) in (int, float)`.

One definition for the gate (which accepts exactly this shape) and the RestrictedPython
policy (which compiles exactly this shape to the worker's `_type_` guard): the worker gives
tools no `type` builtin, so any other use fails there too.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable
from functools import lru_cache

# `==`, `!=`, `is`, `is not`, `in`, `not in`: each answers a bool and keeps no operand.
COMPARISONS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)


@lru_cache(maxsize=8)
def builtin_type_names(allowed: frozenset[str]) -> frozenset[str]:
    """The names among `allowed` (a policy's builtins) that name a builtin class."""
    return frozenset(name for name in allowed
                     if isinstance(getattr(builtins, name, None), type))


def type_call(node: ast.AST) -> ast.Call | None:
    """`node` when it is `type(one_argument)`, else None."""
    if (type(node) is ast.Call and type(node.func) is ast.Name
            and node.func.id == "type" and len(node.args) == 1
            and not node.keywords
            and type(node.args[0]) is not ast.Starred):
        return node
    return None


def is_builtin_type_operand(node: ast.AST, type_names: Iterable[str]) -> bool:
    """A builtin type's name, or a non-empty tuple display of them."""
    if type(node) is ast.Name:
        return node.id in type_names
    if type(node) is ast.Tuple:
        elements = node.elts
        return bool(elements) and all(type(e) is ast.Name and e.id in type_names
                                      for e in elements)
    return False


def type_comparison(node: ast.Compare, type_names: Iterable[str]) -> ast.Call | None:
    """The `type(x)` call of an accepted comparison (one operator of COMPARISONS, the call
    on one side, builtin type names on the other), else None."""
    if len(node.ops) != 1 or type(node.ops[0]) not in COMPARISONS:
        return None
    left, right = node.left, node.comparators[0]
    call = type_call(left)
    if call is not None and is_builtin_type_operand(right, type_names):
        return call
    call = type_call(right)
    if call is not None and is_builtin_type_operand(left, type_names):
        return call
    return None
