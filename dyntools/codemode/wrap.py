"""A gated script as the tree a worker runs: its statements inside `run(inputs)`.

    tree = wrap_script(ast.parse(source))
    # def run(inputs):
    #     import host as tools
    #     <the script, each tools.NAME(k=v, **more) now tools.call_tool("NAME", {"k": v, **more})>
    #     return {"result": result}

The worker runs a tool's `run(params)` inside a call, which is when the `host` stubs may
send requests (sandbox/worker/hostapi.py); a module body runs before any call. So the script
becomes the body of `run`, its input the parameter `inputs`, its answer the value returned
under "result". `tools` is bound to the worker's `host` module, which the script cannot name
any other way: the gate accepts `tools` only as the callee's object in `tools.NAME(...)`
(DT406), and every such call is rewritten here, so the one member of `host` a script reaches
is `call_tool`, always with a literal tool name. Positions are the script's own, so a
traceback quotes the script's lines. Nothing here compiles or runs the tree.

Top-level names become locals of `run`, and the script's functions closures over them, which
Python resolves as it resolved them at module level (the gate refuses `global` and
`nonlocal`). `from __future__ import annotations` is dropped (a compiler directive that may
only stand at a module's top; annotations are dropped by the sandbox anyway).
"""

from __future__ import annotations

import ast

from dyntools.gate.script import INPUTS, RESULT, TOOLS

HOST_MODULE = "host"
CALL_MEMBER = "call_tool"


def tool_calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    """Every `tools.NAME(...)` call of a script, as (NAME, call), in the order `ast.walk`
    finds them."""
    found: list[tuple[str, ast.Call]] = []
    for node in ast.walk(tree):
        name = _tool_name(node)
        if name is not None:
            assert isinstance(node, ast.Call)
            found.append((name, node))
    return found


def _tool_name(node: ast.AST) -> str | None:
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == TOOLS):
        return node.func.attr
    return None


def request_params(call: ast.Call) -> ast.Dict:
    """The params of `tools.NAME(k=v, **more)` as the dict display `{"k": v, **more}`, in
    the order Python would evaluate the keyword arguments."""
    keys: list[ast.expr | None] = []
    values: list[ast.expr] = []
    for keyword in call.keywords:
        keys.append(None if keyword.arg is None else
                    ast.copy_location(ast.Constant(keyword.arg), keyword))
        values.append(keyword.value)
    return ast.copy_location(ast.Dict(keys=keys, values=values), call)


class _ToolCalls(ast.NodeTransformer):
    """`tools.NAME(...)` -> `tools.call_tool("NAME", {...})`, innermost first, once each."""

    def __init__(self, module: str) -> None:
        self.module = module

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)  # tool calls among the arguments first
        name = _tool_name(node)
        if name is None:
            return node
        func = ast.copy_location(ast.Attribute(
            value=ast.copy_location(ast.Name(self.module, ast.Load()), node.func),
            attr=CALL_MEMBER, ctx=ast.Load()), node.func)
        return ast.copy_location(ast.Call(
            func=func, args=[ast.copy_location(ast.Constant(name), node.func),
                             request_params(node)],
            keywords=[]), node)


def rewrite_tool_calls(node: ast.AST, module: str = TOOLS) -> ast.AST:
    """`node` with every `tools.NAME(...)` call made a request through `module.call_tool`
    (in place; the node is returned)."""
    result: ast.AST = _ToolCalls(module).visit(node)
    return result


def is_future_import(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"


def wrap_script(tree: ast.Module) -> ast.Module:
    """The worker's tree for `tree`, a script the gate accepted (changed in place)."""
    calls = bool(tool_calls(tree))
    body: list[ast.stmt] = []
    for stmt in tree.body:
        if not is_future_import(stmt):
            rewritten = rewrite_tool_calls(stmt)
            assert isinstance(rewritten, ast.stmt)
            body.append(rewritten)
    end_line = 1
    if tree.body:
        last = tree.body[-1]
        end_line = last.end_lineno or last.lineno
    # Only a script that calls tools gets the worker's `host` stubs (the worker builds them
    # only for a tree that imports `host`).
    first: list[ast.stmt] = [ast.Import(names=[ast.alias(name=HOST_MODULE, asname=TOOLS)])] \
        if calls else []
    answer = ast.Return(value=ast.Dict(keys=[ast.Constant(RESULT)],
                                       values=[ast.Name(RESULT, ast.Load())]))
    for stmt in first:
        _place(stmt, 1)
    _place(answer, end_line)
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(arg=INPUTS)], vararg=None,
                              kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    run = ast.FunctionDef(name="run", args=arguments, body=[*first, *body, answer],
                          decorator_list=[], returns=None, type_comment=None)
    _place(run, 1)
    module = ast.Module(body=[run], type_ignores=[])
    return ast.fix_missing_locations(module)


def _place(node: ast.AST, line: int) -> None:
    """Put `node` and everything below it without a position on `line`."""
    for child in ast.walk(node):
        if "lineno" in child._attributes and not hasattr(child, "lineno"):
            child.lineno = line  # type: ignore[attr-defined]
            child.col_offset = 0  # type: ignore[attr-defined]
            child.end_lineno = line  # type: ignore[attr-defined]
            child.end_col_offset = 0  # type: ignore[attr-defined]
