"""The syntax tree without the `ast` module: parse, walk and iter_child_nodes.

The node classes are `_ast`'s (the `ast` module re-exports them: `ast.Name is _ast.Name`),
and these three functions are the only helpers of `ast` the gate uses. `ast` itself adds
its unparser, NodeVisitor, deprecated aliases and an enum on top, ~1.5 ms of a check's
start-up (bench/startup.py) for nothing the gate calls. The gate's modules write
`import _ast as ast`, so a type checker still reads typeshed's node classes.
"""

from __future__ import annotations

import _ast as ast
import sys
from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

__all__ = ["iter_child_nodes", "parse", "walk"]


def parse(text: str) -> ast.Module:
    """`ast.parse(text, type_comments=False)`, every warning ignored: SyntaxWarnings
    (invalid escapes, `is` with a literal) are not findings, and under `-W error` they
    would raise a SyntaxError for a file that is valid Python."""
    warnings: Any = sys.modules.get("warnings")
    if warnings is not None:  # loaded: its filters are the ones the interpreter reads
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _compile(text)
    # Not loaded (a check never loads it): the interpreter reads _warnings' own filter list,
    # which is what `warnings.filters` starts as once loaded. Ignore everything while
    # compiling, as catch_warnings + simplefilter("ignore") would, then put the list back.
    import _warnings

    state: Any = _warnings
    filters: list[Any] = state.filters
    saved = filters[:]
    filters.insert(0, ("ignore", None, Warning, None, 0))
    state._filters_mutated()
    try:
        return _compile(text)
    finally:
        filters[:] = saved
        state._filters_mutated()


def _compile(text: str) -> ast.Module:
    tree = compile(text, "<unknown>", "exec", ast.PyCF_ONLY_AST)
    if not isinstance(tree, ast.Module):  # what "exec" mode makes; typeshed says AST
        raise TypeError(f"compile made {type(tree).__name__}, not Module")
    return tree


def iter_child_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The direct child nodes of `node`, in field order (as `ast.iter_child_nodes`)."""
    for name in node._fields:
        try:
            field = getattr(node, name)
        except AttributeError:
            continue
        if isinstance(field, ast.AST):
            yield field
        elif isinstance(field, list):
            for item in field:
                if isinstance(item, ast.AST):
                    yield item


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and every node below it, breadth first (as `ast.walk`)."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        todo.extend(iter_child_nodes(node))
        yield node
