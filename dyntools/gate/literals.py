"""Evaluate the literal values of top-level constants without executing anything.

Only str, int, float, bool, None, and list, tuple, dict and set displays of them are literals;
a negative number (`-1`) counts. Everything else raises `NotLiteral` naming the node, so the
contract rule can point at the exact sub-expression that is not a literal.
"""

from __future__ import annotations

import ast
from typing import Any

_SCALARS = (str, int, float, bool, type(None))
MAX_LITERAL_DEPTH = 50


class NotLiteral(Exception):
    def __init__(self, node: ast.AST) -> None:
        super().__init__(type(node).__name__)
        self.node = node


def literal_value(node: ast.expr, depth: int = 0) -> Any:
    if depth > MAX_LITERAL_DEPTH:
        raise NotLiteral(node)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, _SCALARS):
            return node.value
        raise NotLiteral(node)
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) in (int, float)
    ):
        number: int | float = node.operand.value  # type: ignore[assignment]
        return -number if isinstance(node.op, ast.USub) else number
    if isinstance(node, ast.List):
        return [literal_value(e, depth + 1) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(literal_value(e, depth + 1) for e in node.elts)
    if isinstance(node, ast.Set):
        return {_hashable(literal_value(e, depth + 1), e) for e in node.elts}
    if isinstance(node, ast.Dict):
        result: dict[Any, Any] = {}
        for key, item in zip(node.keys, node.values, strict=True):
            if key is None:  # `**spread` inside a dict display
                raise NotLiteral(item)
            result[_hashable(literal_value(key, depth + 1), key)] = literal_value(
                item, depth + 1
            )
        return result
    raise NotLiteral(node)


def _hashable(value: Any, node: ast.expr) -> Any:
    try:
        hash(value)
    except TypeError:
        raise NotLiteral(node) from None
    return value
