"""Evaluate the literal values of top-level constants without executing anything.

Only str, int, float, bool, None, and list, tuple, dict and set displays of them are literals;
a negative number (`-1`) counts. Everything else raises `NotLiteral` naming the node, so the
contract rule can point at the exact sub-expression that is not a literal.

`measured_literal` also says how many syntax nodes the literal holds and how deep its
displays nest, so the visitor can account for a top-level literal without walking it a second
time (its node and depth limits see the same numbers a walk would).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
_SCALARS = frozenset({str, int, float, bool, type(None)})
_NUMBERS = frozenset({int, float})
MAX_LITERAL_DEPTH = 50

_Constant, _List, _Tuple, _Set, _Dict, _UnaryOp = (
    ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.UnaryOp)
_SIGNS = (ast.USub, ast.UAdd)


class NotLiteral(Exception):
    def __init__(self, node: ast.AST) -> None:
        super().__init__(type(node).__name__)
        self.node = node


def literal_value(node: ast.expr, depth: int = 0) -> Any:
    return _value(node, depth, [0, 0])


def measured_literal(node: ast.expr) -> tuple[Any, int, int]:
    """(value, syntax nodes in it, deepest nesting of its displays: 0 for a flat one)."""
    stats = [0, 0]
    value = _value(node, 0, stats)
    return value, stats[0], stats[1]


def _value(node: ast.expr, depth: int, stats: list[int]) -> Any:
    """`stats`: [nodes counted as the gate's visitor counts them, deepest display depth]."""
    if depth > MAX_LITERAL_DEPTH:
        raise NotLiteral(node)
    kind = type(node)
    stats[0] += 1
    if kind is _Constant:
        value = node.value  # type: ignore[attr-defined]
        if type(value) in _SCALARS:
            return value
        raise NotLiteral(node)
    if depth > stats[1]:  # noqa: PLR1730 (the hot path of every display: no call)
        stats[1] = depth
    inner = depth + 1
    if kind is _List or kind is _Tuple:
        items: list[Any] = []
        append = items.append
        for element in node.elts:  # type: ignore[attr-defined]
            if type(element) is _Constant and inner <= MAX_LITERAL_DEPTH \
                    and type(element.value) in _SCALARS:
                stats[0] += 1
                append(element.value)
            else:
                append(_value(element, inner, stats))
        return items if kind is _List else tuple(items)
    if kind is _Dict:
        result: dict[Any, Any] = {}
        for key, item in zip(node.keys, node.values, strict=True):  # type: ignore[attr-defined]
            if key is None:  # `**spread` inside a dict display
                raise NotLiteral(item)
            # The value before the key, as `result[key] = value` evaluates them.
            if type(item) is _Constant and inner <= MAX_LITERAL_DEPTH \
                    and type(item.value) in _SCALARS:
                stats[0] += 1
                value = item.value
            else:
                value = _value(item, inner, stats)
            if type(key) is _Constant and type(key.value) is str and inner <= MAX_LITERAL_DEPTH:
                stats[0] += 1
                result[key.value] = value
            else:
                result[_hashable(_value(key, inner, stats), key)] = value
        return result
    if kind is _Set:
        return {_hashable(_value(e, inner, stats), e) for e in node.elts}  # type: ignore[attr-defined]
    if (
        kind is _UnaryOp
        and isinstance(node.op, _SIGNS)  # type: ignore[attr-defined]
        and type(node.operand) is _Constant  # type: ignore[attr-defined]
        and type(node.operand.value) in _NUMBERS  # type: ignore[attr-defined]
    ):
        stats[0] += 1  # the operand
        number: int | float = node.operand.value  # type: ignore[attr-defined,assignment]
        return -number if isinstance(node.op, ast.USub) else number  # type: ignore[attr-defined]
    raise NotLiteral(node)


def _hashable(value: Any, node: ast.expr) -> Any:
    try:
        hash(value)
    except TypeError:
        raise NotLiteral(node) from None
    return value
