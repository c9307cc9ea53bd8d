"""Benign tools run for real: every accepted corpus file and every offline template must
reproduce its own EXAMPLES exactly in the sandbox, with every layer on.

The gate tests prove these files are accepted; this proves they also *work* once accepted.
A failure here is either a sandbox false positive (a guard or an OS layer refusing legitimate
code, e.g. a lazy import after lockdown) or a wrong example in the fixture.

One warm pool per file; all its examples go through it, as the pipeline's verify station does
(params are checked against PARAMS first, results compared as canonical JSON).
"""

from __future__ import annotations

import builtins
import functools
import random
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from dyntools.capabilities.hostcalls import CapabilityHost
from dyntools.errors import SandboxViolation, ToolRuntimeError
from dyntools.gate import check_source
from dyntools.gate.policy import Policy
from dyntools.generators.offline import template_names, template_source
from dyntools.pipeline.toolmeta import params_check, read_metadata
from dyntools.pipeline.verify import collect_examples, run_examples
from dyntools.sandbox import SandboxLimits, WorkerPool, run_once
from dyntools.sandbox.worker import guards as guards_module

ACCEPT_DIR = Path(__file__).resolve().parents[1] / "gate" / "cases" / "accept"
HOST_DIR = ACCEPT_DIR.parent / "accept_host"  # capability tools: recorded exchanges, call_tool
CORPUS = sorted([*ACCEPT_DIR.glob("*.py"), *HOST_DIR.glob("*.py")])
TEMPLATES = template_names()


def _template_tool(policy: Policy) -> Any:
    """`host.call_tool` for the corpus: the offline template of that name, in a sandbox."""
    def call(name: str, params: dict[str, Any], timeout: float,
             chain: tuple[str, ...]) -> dict[str, Any]:
        return run_once(f"{name}.py", params, policy=policy, source=template_source(name),
                        limits=SandboxLimits(timeout_s=max(timeout, 1.0)))

    return call


def _verify(path: Path, source: str, policy: Policy, module_name: str) -> None:
    assert check_source(source, policy, path=str(path)).accepted, f"{path.name}: gate refused it"
    meta = read_metadata(source)
    examples = collect_examples(meta.examples)
    assert examples, f"{path.name} declares no EXAMPLES"
    limits = SandboxLimits(timeout_s=20.0, memory_mb=256)  # generous: a loaded CI box
    # A capability tool's examples replay their recorded exchanges, as verification does.
    host_for = CapabilityHost().replaying(
        tool=module_name, version=1, declared=meta.capabilities,
        tools=_template_tool(policy)) if meta.capabilities else None
    with WorkerPool(path, module_name=module_name, policy=policy, limits=limits, size=1,
                    source=source) as pool:

        def call(params: dict[str, Any], host: Any = None) -> dict[str, Any]:
            return pool.call(params, host=host)

        report = run_examples(call, examples, tool=module_name,
                              check=params_check(meta.params, meta.name), host_for=host_for)
    assert report.passed, f"{path.name}: {report.summary()}"


def test_the_corpora_are_there() -> None:
    assert len(CORPUS) >= 60
    assert TEMPLATES


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_accepted_tool_reproduces_its_examples(path: Path, policy: Policy) -> None:
    _verify(path, path.read_text(encoding="utf-8"), policy, f"{path.stem}_v1")


@pytest.mark.parametrize("name", TEMPLATES)
def test_offline_template_reproduces_its_examples(name: str, policy: Policy,
                                                  tmp_path: Path) -> None:
    source = template_source(name)
    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    _verify(path, source, policy, f"{name}_v1")


# Library code that imports `re` lazily during a call, in tools that do not import `re`
# themselves: `re` -> `enum` -> `types`, whose import reads `__code__` and `tb_frame` and so
# raised the audit event `object.__getattr__`, which ended the call as a sandbox violation.
LAZY_RE_IMPORTS = {
    "strptime": ("from datetime import datetime",
                 'datetime.strptime(params["text"], "%Y-%m-%d %H:%M").isoformat()',
                 {"text": "2024-03-05 14:30"}, "2024-03-05T14:30:00"),
    "time_strptime": ("import time",
                      'time.strftime("%d.%m.%Y", time.strptime(params["text"], "%Y-%m-%d"))',
                      {"text": "2024-03-05"}, "05.03.2024"),
    "idna": ("", 'params["text"].encode("idna").decode("ascii")',
             {"text": "bücher.example"}, "xn--bcher-kva.example"),
}


@pytest.mark.parametrize("case", sorted(LAZY_RE_IMPORTS))
def test_lazy_library_imports_during_a_call_are_not_violations(case: str, tool, policy,
                                                                 limits) -> None:
    imports, expression, params, expected = LAZY_RE_IMPORTS[case]
    path = tool(f"def run(params):\n    return {{'value': {expression}}}\n", imports=imports,
                name=case)
    source = path.read_text(encoding="utf-8")
    assert check_source(source, policy).accepted
    with WorkerPool(path, module_name=f"{case}_v1", policy=policy, limits=limits, size=1,
                    source=source) as pool:
        assert pool.call(params) == {"value": expected}


class Stopped(Exception):
    pass


def _stop(reason: str, message: str) -> None:
    raise Stopped(reason, message)


ESCAPES = [
    ("functools.wraps", functools.wraps),                  # a function
    ("time.sleep", time.sleep),                            # a built-in function
    ("random.random", random.random),                      # a bound built-in method
    ("random.seed", random.seed),                          # a bound Python method
    ("functools.WRAPPER_ASSIGNMENTS", functools.WRAPPER_ASSIGNMENTS),  # a plain tuple
]


def test_attribute_reads_on_library_values_call_no_id(monkeypatch) -> None:
    """`id()` raises the audit event `builtins.id`: one call of the tripwire's Python hook
    per read doubled the guard's cost on loops over datetime fields. Reads whose value
    cannot be an escape route must not call it, and escape routes stay refused."""
    guards = guards_module.Guards(stop=_stop, denied_attributes=[], denied_prefixes=[],
                                  escape_objects=ESCAPES, max_output_bytes=100)
    getattr_ = guards.getattr_guard()
    calls: list[object] = []
    monkeypatch.setattr(guards_module, "id", lambda obj: calls.append(obj) or builtins.id(obj),
                        raising=False)
    moment = datetime(2024, 1, 1, 12, 30)
    assert [getattr_(moment, "minute"), getattr_(moment, "hour")] == [30, 12]
    assert getattr_(moment, "weekday")() == 0
    assert getattr_(random.Random(1), "random")() == random.Random(1).random()
    assert calls == []
    for _, value in ESCAPES:
        holder = type("Holder", (), {"value": value})
        with pytest.raises(Stopped, match="escape route"):
            getattr_(holder, "value")


def test_future_annotations_is_a_directive_not_an_import(tool, policy, limits) -> None:
    """The gate accepts `from __future__ import annotations` (modern code starts with it);
    the import guard refused `__future__` at run time. Other futures stay refused."""
    body = '''
def run(params: dict[str, Any]) -> dict[str, list[int] | None]:
    return {"doubled": [2 * n for n in params["numbers"]]}
'''
    path = tool(body, imports="from __future__ import annotations\nfrom typing import Any")
    source = path.read_text(encoding="utf-8")
    assert check_source(source, policy).accepted
    with WorkerPool(path, module_name="future_v1", policy=policy, limits=limits, size=1,
                    source=source) as pool:
        assert pool.call({"numbers": [1, 2]}) == {"doubled": [2, 4]}

    other = tool("def run(params):\n    return {}\n", imports="from __future__ import generator_stop")
    with WorkerPool(other, module_name="future_v2", policy=policy, limits=limits,
                    size=1) as pool, pytest.raises(SandboxViolation):
        pool.call({})


def test_names_restrictedpython_reserves_are_plain_locals(tool, policy, limits) -> None:
    """`printed`, `breakpoint`, `builtins` and `print` mean nothing special under this policy; the gate
    accepts them as local names, so the sandbox must not refuse the file at load. Reading
    the real `breakpoint` still fails: it is not among the tool's builtins."""
    body = '''
def tax(amount: float, breakpoint: float = 1000.0) -> float:
    return round(max(0.0, amount - breakpoint) * 0.2, 2)


def run(params):
    printed = [f"{amount}: {tax(amount)}" for amount in params["amounts"]]
    builtins = len(printed)
    print = "shadowed"
    return {"lines": printed, "count": builtins, "print": print}
'''
    path = tool(body)
    source = path.read_text(encoding="utf-8")
    assert check_source(source, policy).accepted
    with WorkerPool(path, module_name="reserved_v1", policy=policy, limits=limits, size=1,
                    source=source) as pool:
        assert pool.call({"amounts": [500, 1500]}) == {
            "lines": ["500: 0.0", "1500: 100.0"], "count": 2, "print": "shadowed"}

    unbound = tool("def run(params):\n    breakpoint()\n    return {}\n")
    with WorkerPool(unbound, module_name="reserved_v2", policy=policy, limits=limits,
                    size=1) as pool, pytest.raises(ToolRuntimeError, match="NameError"):
        pool.call({})
