"""The error tree is closed: its drawing is its classes, every leaf is raised somewhere (or
reserved with a reason), and the allow-list reaches callers as a `PolicyLoadError` from it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner

import dyntools
from dyntools import errors
from dyntools.errors import DyntoolsError, PolicyLoadError
from tests.support.cli import dyntools as dyntools_cli

PACKAGE = Path(dyntools.__file__).parent
CLASSES = {name: value for name, value in vars(errors).items()
           if isinstance(value, type) and issubclass(value, DyntoolsError)}
LEAVES = {name for name, cls in CLASSES.items()
          if not any(other is not cls and issubclass(other, cls) for other in CLASSES.values())}


def _drawn_tree() -> dict[str, str | None]:
    """class name -> parent name, as the module docstring draws it."""
    parents: dict[str, str | None] = {}
    stack: list[str] = []
    for line in (errors.__doc__ or "").splitlines():
        stripped = line.lstrip(" │├└─")
        name = stripped.split(" ", 1)[0]
        if name not in CLASSES:
            continue  # prose, or a description continued on the next line
        depth = (len(line) - len(stripped) - 4) // 4
        del stack[depth:]
        parents[name] = stack[-1] if stack else None
        stack.append(name)
    return parents


def test_the_docstring_draws_every_class_where_it_is() -> None:
    drawn = _drawn_tree()
    assert set(drawn) == set(CLASSES)
    for name, parent in drawn.items():
        base = CLASSES[name].__bases__[0]
        assert (base.__name__ if base is not Exception else None) == parent, name


def _raised_names() -> set[str]:
    """Classes of the tree raised or constructed anywhere in dyntools/ outside errors.py."""
    found: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None:
                target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            elif isinstance(node, ast.Call):
                target = node.func
            else:
                continue
            if isinstance(target, ast.Name):
                found.add(target.id)
            elif isinstance(target, ast.Attribute):
                found.add(target.attr)
    return found & set(CLASSES)


def _raised_through_tables() -> set[str]:
    """Leaves raised by looking the class up in a translation table, then constructing it."""
    from dyntools.generators import sdk_errors
    from dyntools.sandbox import runner

    classes = set(sdk_errors.SDK_ERRORS.values())
    classes |= {sdk_errors._by_status(status) for status in range(100, 600)}
    classes |= set(runner._ERRORS.values())
    classes |= {cls for cls, _ in runner._SIGNALS.values()}
    return {cls.__name__ for cls in classes}


def test_every_leaf_is_raised_or_reserved_with_a_reason() -> None:
    raised = _raised_names() | _raised_through_tables()
    assert sorted(LEAVES - raised - set(errors.RESERVED)) == []
    assert set(errors.RESERVED) <= LEAVES, "only a leaf is reserved"
    assert all(reason.strip() for reason in errors.RESERVED.values())
    assert sorted(set(errors.RESERVED) & raised) == [], "raised now: drop it from RESERVED"


# ------------------------------------------------------ the allow-list, at dyntools' boundary


@pytest.fixture
def bad_allowlist(tmp_path: Path) -> Path:
    path = tmp_path / "allowlist.toml"
    path.write_text("[modules.json\n")
    return path


def test_library_callers_get_a_policy_load_error(
    bad_allowlist: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dyntools import Dyntools, Registry
    from dyntools.generators.anthropic import AnthropicGenerator

    monkeypatch.setenv("DYNTOOLS_ALLOWLIST", str(bad_allowlist))
    for make in (lambda: Registry.open(tmp_path / "reg"), lambda: Dyntools(tmp_path / "reg"),
                 AnthropicGenerator):
        with pytest.raises(PolicyLoadError) as caught:
            make()
        assert caught.value.as_dict()["station"] == "policy"
        assert str(bad_allowlist) in caught.value.message
        assert caught.value.details["path"] == str(bad_allowlist)
    monkeypatch.setenv("DYNTOOLS_ALLOWLIST", str(tmp_path / "missing.toml"))
    with pytest.raises(PolicyLoadError, match="cannot read allow-list"):
        Registry.open(tmp_path / "reg")


@pytest.mark.parametrize("command", [["call", "echo_tool", "--params", "{}"], ["list"],
                                     ["check", "FILE"], ["ensure", "echo_tool"]])
def test_the_cli_says_it_in_one_line_and_exits_2(
    command: list[str], bad_allowlist: Path, tmp_path: Path
) -> None:
    from dyntools.cli import main

    (tmp_path / "reg").mkdir()
    (tmp_path / "FILE").write_text("x = 1\n")
    argv = [str(tmp_path / "FILE") if a == "FILE" else a for a in command]
    if command[0] != "check":
        argv += ["--registry", str(tmp_path / "reg")]
    result = CliRunner().invoke(main, [*argv, "--allowlist", str(bad_allowlist)])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len([line for line in lines if "allowlist.toml" in line]) == 1, result.stderr
    assert "Traceback" not in result.output


def test_a_bad_allow_list_from_the_environment_is_the_same_usage_error(bad_allowlist: Path, tmp_path: Path) -> None:
    done = dyntools_cli("call", "echo_tool", "--params", "{}", "--registry", str(tmp_path),
                    add_env={"DYNTOOLS_ALLOWLIST": str(bad_allowlist)}, timeout=60)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    named = [line for line in done.stderr.splitlines() if str(bad_allowlist) in line]
    assert len(named) == 1 and named[0].startswith("Error: "), done.stderr
