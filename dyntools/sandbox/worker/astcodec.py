"""Ship a syntax tree from the host to a worker as plain `marshal` data.

The host parses and transforms the tool's source (RestrictedPython, our policy); the worker
rebuilds the tree from the C `_ast` module and compiles it. That keeps `ast` and
RestrictedPython (20 ms of imports here) out of the worker, and line numbers stay exact for
tracebacks.

A node is `(class_name, field_values, (lineno, col_offset, end_lineno, end_col_offset))`;
lists stay lists; a `Constant`'s value is shipped as is (marshal carries every constant type).
"""

from __future__ import annotations

TYPE_CHECKING = False  # keep typing out of the worker's imports
if TYPE_CHECKING:
    from typing import Any

_POSITION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def encode(node: Any, parent_position: tuple[int, int, int, int] = (1, 0, 1, 0)) -> Any:
    """Host side: an `ast` tree into tuples, lists and constants. A node the transformer made
    without a position takes its parent's."""
    cls = type(node)
    name = cls.__name__
    position: tuple[Any, ...] = ()
    if cls._attributes:
        position = tuple(getattr(node, a, None) for a in _POSITION)
        if None in position:
            position = parent_position
    inherited = position or parent_position
    if name == "Constant":
        return (name, (node.value, node.kind), position)
    values = []
    for field in cls._fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            values.append([_encode_value(v, inherited) for v in value])
        else:
            values.append(_encode_value(value, inherited))
    return (name, tuple(values), position)


def _encode_value(value: Any, parent_position: Any) -> Any:
    if value is None or isinstance(value, str | int):
        return value
    return encode(value, parent_position)


def decode(data: Any, ast_module: Any) -> Any:
    """Worker side: rebuild the tree with the classes of `ast_module` (`_ast`)."""
    name, values, position = data
    cls = getattr(ast_module, name)
    if name == "Constant":
        node = cls(values[0], values[1])
    else:
        args = []
        for value in values:
            if type(value) is tuple:
                args.append(decode(value, ast_module))
            elif type(value) is list:
                args.append([
                    decode(v, ast_module) if type(v) is tuple else v for v in value
                ])
            else:
                args.append(value)
        node = cls(*args)
    if position:
        node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = position
    return node
