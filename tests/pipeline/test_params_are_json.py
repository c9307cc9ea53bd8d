"""Params are JSON values, refused at the host otherwise (issue 26, red team "Minor"):
`Dyntools.call` passed bytes, tuples, NaN and ints past Python's digit limit through to the
tool, and `call --params` accepted NaN and Infinity, which are not JSON. One registry, one
warm worker (pool_size=1), the real CLI in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dyntools import Dyntools
from dyntools.base.paramsize import json_value_problem
from dyntools.errors import InvalidParams
from tests.support.cli import run_cli

ECHO = '''"""Echoes its params."""
NAME = "echo_all"
DESCRIPTION = "Echoes its params."
PARAMS = {"type": "object"}


def run(params):
    return {"echo": params}
'''


@pytest.fixture(scope="module")
def reg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("params")
    (root / "echo.py").write_text(ECHO)
    code, _, err = run_cli(["ensure", "echo_all", "--generator", "file", "--from",
                            str(root / "echo.py"), "--registry", str(root / "reg")], root)
    assert code == 0, err
    return root / "reg"


@pytest.fixture(scope="module")
def dt(reg: Path) -> Any:
    with Dyntools(reg, pool_size=1) as tools:
        yield tools


NOT_JSON = {
    "tuple": ({"a": (1, 2)}, "not tuple"),
    "bytes": ({"a": b"x"}, "not bytes"),
    "set": ({"a": {1}}, "not set"),
    "nan": ({"a": float("nan")}, "nan"),
    "infinity": ({"a": [float("-inf")]}, "-inf"),
    "int past the digit limit": ({"a": 10**5000}, "more than 4300 digits"),
    "int key": ({1: 2}, "keys must be strings"),
    "str subclass": ({"a": type("S", (str,), {})("x")}, "not S"),
}


@pytest.mark.parametrize("case", NOT_JSON, ids=list(NOT_JSON))
def test_the_library_refuses_params_that_are_not_json(dt: Any, case: str) -> None:
    params, said = NOT_JSON[case]
    with pytest.raises(InvalidParams, match="params for echo_all") as caught:
        dt.call("echo_all", params)
    assert said in caught.value.message
    assert caught.value.reason == "invalid_params"


def test_the_library_passes_json_values_through(dt: Any) -> None:
    params = {"a": [1, -2.5, "x", None, True, {"b": 10**4299}], "c": 1e308}
    assert dt.call("echo_all", params) == {"echo": params}


@pytest.mark.parametrize("text", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}',
                                  '{"a": 1e999}'])
def test_the_command_line_refuses_nan_and_infinity(reg: Path, text: str) -> None:
    code, out, err = run_cli(["call", "echo_all", "--params", text, "--registry", str(reg)],
                             reg.parent)
    assert code == 2, (out, err)
    assert "--params is not" in err and "Traceback" not in err and out == ""


def test_the_command_line_passes_json_numbers(reg: Path) -> None:
    code, out, err = run_cli(["call", "echo_all", "--params", '{"a": 1e308, "b": -0.5}',
                              "--registry", str(reg)], reg.parent)
    assert code == 0, err
    assert json.loads(out) == {"echo": {"a": 1e308, "b": -0.5}}


def test_the_check_walks_without_recursion() -> None:
    deep: Any = "x"
    for _ in range(100_000):
        deep = [deep]
    assert json_value_problem(deep) is None
    assert json_value_problem([deep, b""]) == "params may hold only JSON data, not bytes"
