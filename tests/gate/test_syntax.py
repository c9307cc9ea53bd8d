"""dyntools.gate.syntax: the gate's parse, walk and iter_child_nodes give what ast's give,
and a parse ignores warnings (an error filter included) whether or not the warnings module
is loaded, leaving the filters as they were."""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

from dyntools.gate import syntax

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

WARNS = 'x = "\\d"\ny = 1 is 1\n'  # an invalid escape and `is` with a literal: both warn


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_parse_and_walks_are_asts(source: str) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = ast.parse(source, type_comments=False)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        with pytest.raises((SyntaxError, ValueError, RecursionError, MemoryError)):
            syntax.parse(source)
        return
    tree = syntax.parse(source)
    assert ast.dump(tree, include_attributes=True) == ast.dump(expected, include_attributes=True)
    assert [ast.dump(n) for n in syntax.walk(tree)] == [ast.dump(n) for n in ast.walk(tree)]
    for node in ast.walk(tree):
        assert list(syntax.iter_child_nodes(node)) == list(ast.iter_child_nodes(node))


def test_a_node_without_a_field_set_is_walked_as_ast_walks_it() -> None:
    node = ast.BinOp(left=ast.Constant(1))  # op and right unset
    assert list(syntax.iter_child_nodes(node)) == list(ast.iter_child_nodes(node))
    assert list(syntax.walk(node)) == list(ast.walk(node))


def test_with_warnings_loaded_an_error_filter_does_not_turn_warnings_into_errors() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        before = list(warnings.filters)
        with pytest.raises(SyntaxError):
            compile(WARNS, "<x>", "exec", ast.PyCF_ONLY_AST)  # the filter bites
        assert isinstance(syntax.parse(WARNS), ast.Module)
        assert warnings.filters == before


def test_without_warnings_loaded_the_interpreters_own_filters_are_ignored_then_restored(
) -> None:
    # A fresh interpreter that never loads warnings, with an error filter in _warnings' own
    # list: the parse succeeds, prints nothing, and leaves the list as it found it.
    probe = f"""
import sys, _warnings
_warnings.filters.insert(0, ("error", None, Warning, None, 0))
_warnings._filters_mutated()
before = list(_warnings.filters)
from dyntools.gate import syntax
tree = syntax.parse({WARNS!r})
same = _warnings.filters == before
try:
    compile({WARNS!r}, "<x>", "exec", 1024)
    bites = False
except SyntaxError:
    bites = True
print(type(tree).__name__, same, bites, "warnings" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    assert (done.stdout.strip(), done.stderr) == ("Module True True False", "")


def test_the_check_of_a_warning_file_is_quiet_and_accepted_under_w_error(tmp_path: object,
                                                                           ) -> None:
    from pathlib import Path

    source = (Path(__file__).parents[2] / "dyntools" / "generators" / "templates" /
              "slugify_text.py").read_text()
    tool = Path(str(tmp_path)) / "slugify_text.py"
    tool.write_text(source.replace("\ndef run", '\nPATTERN_NOTE = "\\\\d"\n\n\ndef run', 1)
                    + '\n\ndef helper(value):\n    return value == "\\d"\n')
    for flags in ([], ["-W", "error"]):
        done = subprocess.run([sys.executable, *flags, "-m", "dyntools", "check", str(tool)],
                              capture_output=True, text=True, timeout=60, check=False)
        assert (done.returncode, done.stderr) == (0, ""), (flags, done.stdout)
