"""Issue 27: a tool may name its own things `_helper`, never a guard.

The reserved set is derived here from the worker's own name lists, not copied: the names a
real worker's tool module holds in its globals, the runtime guards the worker installs (both
the real ones and the permissive ones the layer tests use), the names RestrictedPython's
transformer and our policy compile into tool code. Every one of them must be reserved by
`dyntools.base.reserved_names`, and both the gate and the RestrictedPython policy must refuse
it at every binding site and where it is read. A guard added later is caught by the first
assertion without anyone editing a list.
"""

from __future__ import annotations

import inspect
import re
import textwrap

import pytest

from dyntools.base.reserved_names import is_reserved, underscore_problem
from dyntools.errors import LoadError
from dyntools.gate import check_source
from dyntools.sandbox import restrict, rp_transformer
from dyntools.sandbox.testing import PYTHON_LAYERS, run_unchecked
from dyntools.sandbox.worker import guards as worker_guards

TOOL_HEADER = '''"""A test tool."""
NAME = "probe"
DESCRIPTION = "Lists what a worker puts in a tool's globals."
PARAMS = {"type": "object"}
'''
OWN_NAMES = {"NAME", "DESCRIPTION", "PARAMS", "run"}
_NAME_LITERAL = re.compile(r"""(?:ast\.)?Name\(\s*['"](_\w*)['"]""")
_GUARD_CALL = re.compile(r"""_guard_call\(\s*['"](_\w*)['"]""")


def worker_global_names(tmp_path) -> set[str]:
    """What a real worker's tool module holds besides the tool's own names (the Python layer
    off, so the tool can call globals(); the worker fills the same namespace either way)."""
    path = tmp_path / "probe.py"
    path.write_text(TOOL_HEADER + "\n\ndef run(params):\n    return {'names': sorted(globals())}\n")
    outcome = run_unchecked(path, {}, disable=PYTHON_LAYERS)
    assert outcome["ok"], outcome
    return set(outcome["result"]["names"]) - OWN_NAMES


def guard_names() -> set[str]:
    def stop(reason: str, message: str) -> None:
        raise AssertionError(reason, message)

    guards = worker_guards.Guards(stop=stop, denied_attributes=[], denied_prefixes=[],
                                  escape_objects=[], max_output_bytes=100)
    return set(guards.guard_names()) | set(worker_guards.permissive_guard_names())


def compiled_in_names() -> set[str]:
    """Names RestrictedPython's transformer and our policy write into tool code."""
    transformer = rp_transformer.load()
    sources = inspect.getsource(transformer) + inspect.getsource(restrict)
    names = set(_NAME_LITERAL.findall(sources)) | set(_GUARD_CALL.findall(sources))
    sample = transformer.RestrictingNodeTransformer()
    names |= {sample.gen_tmp_name() for _ in range(12)}
    return names


@pytest.fixture(scope="module")
def derived(tmp_path_factory) -> set[str]:
    names = (worker_global_names(tmp_path_factory.mktemp("probe")) | guard_names()
             | compiled_in_names() | {"__builtins__", "__import__"})
    # Sanity: the derivation found the guards and the module's own names.
    assert {"_getattr_", "_write_", "_getitem_", "_getiter_", "_apply_", "_call_",
            "__builtins__", "__name__", "_print", "_tmp0"} <= names, sorted(names)
    return names


def test_every_name_the_worker_or_the_transform_uses_is_reserved(derived: set[str]) -> None:
    assert sorted(name for name in derived if not is_reserved(name)) == []
    assert all(underscore_problem(name) is not None for name in derived)


def test_the_names_a_tool_may_bind_are_not_reserved() -> None:
    for name in ("_", "_helper", "_dfs", "_INT_MAX", "_2d", "_seen", "_tmp", "_tmpx", "_print2"):
        assert not is_reserved(name) and underscore_problem(name) is None, name
    for name in ("__x", "_x_", "__init__", "_print", "_tmp12", "__builtins__"):
        assert underscore_problem(name) is not None, name


# Each binding site, then a read; NAME is replaced by the reserved name.
SITES = {
    "parameter": "def helper(NAME):\n    return 1\n\ndef run(params):\n    return {}\n",
    "lambda argument": "def run(params):\n    f = lambda NAME: 1\n    return {}\n",
    "comprehension variable": "def run(params):\n    return {'x': [1 for NAME in []]}\n",
    "except as": "def run(params):\n    try:\n        pass\n    except ValueError as NAME:\n"
                 "        pass\n    return {}\n",
    "import alias": "import json as NAME\n\ndef run(params):\n    return {}\n",
    "from-import alias": "from json import dumps as NAME\n\ndef run(params):\n    return {}\n",
    "global": "def run(params):\n    global NAME\n    return {}\n",
    "walrus": "def run(params):\n    if (NAME := 1):\n        pass\n    return {}\n",
    "for target": "def run(params):\n    for NAME in []:\n        pass\n    return {}\n",
    "with target": "import decimal\n\ndef run(params):\n    with decimal.localcontext() as NAME:\n"
                   "        pass\n    return {}\n",
    "assignment": "def run(params):\n    NAME = 1\n    return {}\n",
    "module constant": "NAME = 1\n\ndef run(params):\n    return {}\n",
    "def": "def NAME(x):\n    return x\n\ndef run(params):\n    return {}\n",
    "delete": "def run(params):\n    del NAME\n    return {}\n",
    "read": "def run(params):\n    return {'x': NAME}\n",
}


def _source(site: str, name: str) -> str:
    return TOOL_HEADER + "\n\n" + SITES[site].replace("NAME", name)


@pytest.mark.parametrize("site", sorted(SITES))
def test_the_gate_refuses_every_reserved_name_at_every_site(derived: set[str], site: str) -> None:
    for name in sorted(derived):
        report = check_source(_source(site, name))
        assert report.codes & {"DT301", "DT604"}, (site, name, report.findings)


@pytest.mark.parametrize("site", sorted(SITES))
def test_the_restricted_policy_refuses_every_reserved_name_at_every_site(
        derived: set[str], site: str) -> None:
    for name in sorted(derived):
        with pytest.raises(LoadError, match="refused by the restricted-code policy"):
            restrict.restrict_source(_source(site, name), "probe.py")


@pytest.mark.parametrize("site", sorted(set(SITES) - {"delete", "read"}))
def test_both_layers_accept_a_private_name_at_every_site(site: str) -> None:
    source = _source(site, "_private")
    if site == "global":
        source = source.replace("def run", "_private = 1\n\ndef run")
    assert check_source(source).accepted, check_source(source).findings
    restrict.restrict_source(source, "probe.py")


def test_the_restricted_policy_keeps_refusing_underscore_keywords_and_members() -> None:
    for body in ("def run(params):\n    return dict(_x=1)\n",
                 "from re import _compile\n\ndef run(params):\n    return {}\n",
                 "import _thread\n\ndef run(params):\n    return {}\n"):
        with pytest.raises(LoadError):
            restrict.restrict_source(TOOL_HEADER + "\n" + body, "probe.py")


def test_this_file_reads_names_from_the_real_transformer() -> None:
    """The regular expressions above must still find what the transformer writes."""
    source = inspect.getsource(rp_transformer.load())
    assert "_getiter_" in set(_NAME_LITERAL.findall(source)), textwrap.shorten(source, 80)
