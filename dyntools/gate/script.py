"""Script mode: what a code-mode script is, on top of the rules every tool file meets.

A script (DESIGN.md section 18) is tool code without the tool's metadata: top-level statements
that read their input as `inputs`, call the registry's tools as `tools.NAME(**params)` and
answer with the value bound to the top-level name `result`. It is checked by the same visitor,
policy and limits as a tool file (`dyntools.gate.check_script`); what is left out is the
contract (metadata and the top-level shape of a module), and what is added is here:

    DT109  a script binds NAME, DESCRIPTION, PARAMS, EXAMPLES or CAPABILITIES at its top
           level: those are a tool file's (`dyntools promote` writes them from a run)
    DT110  a script never binds `result` at its top level: it would have no answer
    DT308  a script binds `inputs` or `tools` (anywhere), or `result` inside a function,
           lambda or comprehension: the names the host gives it and reads back are not the
           script's to rebind, and a `result` in a function is a local that never answers
    DT406  `tools` used in any form but a call `tools.NAME(key=value, **more)`: the host
           rewrites exactly that form into one request for tool NAME, so `tools` is never a
           value a script can hold, pass, index or read an attribute of
    DT105  (the rule of tool files) `global` and `nonlocal`, whatever a tool file may do
           with them: a script's top-level names are locals of the run it is wrapped in
    DT403  (the rule of tool files) a member of `host` that reaches something: a script
           declares no capabilities, and calls tools only as `tools.NAME(...)`; it may
           import `host` for its exception classes (`host.ToolError`)

The walk here is iterative and runs only on a tree the visitor finished within the policy's
node and depth limits, so it neither recurses nor runs long.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from dyntools.base.toolname import tool_name_problem

if TYPE_CHECKING:
    from dyntools.gate.hostuse import HostUse
    from dyntools.gate.policy import Policy

Report = Callable[[ast.AST, str, str], None]

INPUTS, TOOLS, RESULT = "inputs", "tools", "result"
# The names the host binds before a script runs: a script may read them, never bind them.
GIVEN = frozenset({INPUTS, TOOLS})
RESERVED = (INPUTS, TOOLS, RESULT)
METADATA = ("NAME", "DESCRIPTION", "PARAMS", "EXAMPLES", "CAPABILITIES")
# Members of `host` a script may name: exception classes, which reach nothing.
HOST_MEMBERS = frozenset({"ToolError", "HttpError"})

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)
_CALL_FORM = "tools.NAME(key=value, **more)"


def check_script_shape(tree: ast.Module, report: Report) -> None:
    """Report DT109, DT110, DT308 and DT406 for `tree`, a script the visitor walked."""
    binds_result = False
    # (node, its parent, the parent's parent, inside a function-like scope)
    stack: list[tuple[ast.AST, ast.AST | None, ast.AST | None, bool]] = [
        (child, tree, None, False) for child in reversed(tree.body)]
    while stack:
        node, parent, grand, nested = stack.pop()
        for name, where in _bindings(node):
            if name in GIVEN:
                report(where, "DT308", f"{name!r} is given to the script by the host and may "
                       "not be bound: " + ("read the input from it" if name == INPUTS else
                                           f"call tools as {_CALL_FORM}"))
            elif name == RESULT:
                if nested:
                    report(where, "DT308", "'result' is the script's answer: bind it at the "
                           "top level (in a function it is a local that never answers)")
                else:
                    binds_result = True
            elif not nested and name in METADATA and isinstance(node, ast.Name):
                report(where, "DT109", f"{name} belongs to a tool file, not to a script; "
                       "`dyntools promote RUN_ID NAME` writes a tool's metadata from a run")
        if isinstance(node, ast.Name) and node.id == TOOLS and type(node.ctx) is ast.Load:
            _check_tool_use(node, parent, grand, report)
        inner = nested or isinstance(node, _SCOPES)
        children = list(ast.iter_child_nodes(node))
        for child in reversed(children):
            stack.append((child, node, parent, inner))
    if not binds_result:
        report(tree, "DT110", "the script never binds 'result' at its top level: bind the "
               "answer to it (result = {...}) before the script ends")


def _check_tool_use(name: ast.Name, parent: ast.AST | None, grand: ast.AST | None,
                    report: Report) -> None:
    """`tools` must be the object of an attribute that is the callee of a call with keyword
    arguments only."""
    if not isinstance(parent, ast.Attribute) or parent.value is not name:
        report(name, "DT406", f"'tools' may only be called as {_CALL_FORM}; it is not a "
               "value to hold, pass or index")
        return
    attribute = parent
    if attribute.attr.startswith("_"):
        return  # DT302 says why (the visitor's rule for every attribute)
    problem = tool_name_problem(attribute.attr)
    if not isinstance(grand, ast.Call) or grand.func is not attribute:
        report(attribute, "DT406", f"tools.{attribute.attr[:64]} must be called, as "
               f"{_CALL_FORM}: the host answers a call, nothing else")
    elif problem is not None:
        report(attribute, "DT406", f"tools.{attribute.attr[:64]}: {problem}")
    elif grand.args:
        report(grand.args[0], "DT406", f"tools.{attribute.attr} takes its params as keyword "
               f"arguments only ({_CALL_FORM}): positional arguments have no names to send")


def _bindings(node: ast.AST) -> list[tuple[str, ast.AST]]:
    """The names `node` binds itself (not its children), each with where to report it."""
    kind = type(node)
    if kind is ast.Name:
        return [] if type(node.ctx) is ast.Load else [(node.id, node)]  # type: ignore[attr-defined]
    if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
        return [(node.name, node)]  # type: ignore[attr-defined]
    if kind is ast.arg:
        return [(node.arg, node)]  # type: ignore[attr-defined]
    if kind is ast.alias:
        asname = node.asname  # type: ignore[attr-defined]
        return [(asname or node.name.split(".", 1)[0], node)]  # type: ignore[attr-defined]
    if kind is ast.ExceptHandler:
        return [(node.name, node)] if node.name else []  # type: ignore[attr-defined]
    if kind is ast.Global or kind is ast.Nonlocal:
        return [(name, node) for name in node.names]  # type: ignore[attr-defined]
    name = getattr(node, "name", None) or getattr(node, "rest", None)  # match captures
    if isinstance(node, ast.pattern) and isinstance(name, str):
        return [(name, node)]
    return []


def check_script_globals(tree: ast.Module, reported: set[int], report: Report) -> None:
    """DT105 for every `global` and `nonlocal` of a script (at lines not yet reported): the
    host runs a script's statements as the body of `run(inputs)`, so its top-level names are
    locals there and `global` would name something else than the reader sees, whatever a
    tool file may do with `global`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Global | ast.Nonlocal) and node.lineno not in reported:
            keyword = "global" if isinstance(node, ast.Global) else "nonlocal"
            report(node, "DT105", f"{keyword} is not allowed in a script: its top-level "
                   "names are the locals of the run the host wraps it in, which a "
                   f"{keyword} statement does not reach")


def check_script_host_use(policy: Policy, imports: list[ast.stmt], uses: list[HostUse],
                          report: Report) -> None:
    """A script may import `host` for its exception classes; any member that reaches the
    world or another tool is DT403 (a script declares no capabilities)."""
    del imports  # importing `host` alone reaches nothing
    for use in uses:
        if use.member in HOST_MEMBERS:
            continue
        if use.member not in policy.modules[use.module].requires:
            continue
        if isinstance(use.node, ast.Name):
            continue  # a name bound by `from host import member`: reported at its import
        report(use.node, "DT403", f"{use.module}.{use.member} is for tools that declare "
               f"CAPABILITIES; a script declares none and calls tools as {_CALL_FORM}")
