"""Scripts from the project's attack corpus are refused or contained.

- The sandbox attack matrix (tests/sandbox/attack_matrix.py), rewritten as scripts: through
  `run_code` the gate refuses each; with the gate bypassed and the Python layer off, the
  script's worker holds each with its OS layers alone, as a tool's worker does.
- A compromised script worker that forges frames to the host is refused before anything is
  called (the host checks every frame, as it does a tool's).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any

import pytest

from dyntools.codemode.host import ScriptHost
from dyntools.codemode.record import CallRecord, call_key
from dyntools.codemode.wrap import wrap_script
from dyntools.errors import CapabilityViolation, DyntoolsError, RunLimitExceeded
from dyntools.gate.policy import load_policy
from dyntools.pipeline.dyntools import Dyntools
from dyntools.sandbox.limits import SandboxLimits
from dyntools.sandbox.runner import EmptyDirectory, WorkerProcess
from dyntools.sandbox.spec import build_spec
from dyntools.sandbox.testing import PYTHON_LAYERS
from tests.sandbox.attack_matrix import ATTACKS, succeeded, targets

HEADER = "import os\nimport socket\nimport sys\n\nparams = inputs\n"


def as_script(body: str) -> str:
    """An attack's run(params) body as a script: top-level statements, `return X` as
    `result = X` (the attacks return only at their body's own level)."""
    lines = textwrap.dedent(body).strip("\n").split("\n")[1:]  # drop `def run(params):`
    lines = textwrap.dedent("\n".join(lines)).split("\n")
    script = [("result = " + line[len("return "):]) if line.startswith("return ") else
              line.replace("    return ", "    result = ") if line.startswith("    return ")
              else line for line in lines]
    return HEADER + "\n".join(script) + "\n"


class Nowhere:
    def call(self, name: str, params: dict[str, Any], *, timeout: float | None = None,
             chain: tuple[str, ...] = (), read_only: bool = False) -> dict[str, Any]:
        raise AssertionError("an attack script called a tool")


def host(**extra: Any) -> ScriptHost:
    options: dict[str, Any] = {"surface": Nowhere(), "run_id": "0" * 16, "segment": 1,
                               "recorded": [], "max_tool_calls": 10, "max_depth": 3,
                               "call_timeout": 5.0, "version_of": lambda name: None,
                               "budget_s": 10.0}
    options.update(extra)
    made = ScriptHost(**options)
    made.started()
    return made


def run_unchecked_script(source: str, inputs: dict[str, Any], tmp: Path,
                         disable: frozenset[str]) -> dict[str, Any]:
    """A script in a worker with no gate and `disable` off: {"ok", "result", "error"}."""
    spec = build_spec(tmp / "attack.py", module_name="attack_script", policy=load_policy(),
                      limits=SandboxLimits(timeout_s=5.0), skip_layers=disable,
                      source=source, tree=wrap_script(ast.parse(source)),
                      allow_weaker_sandbox=True)
    cwd = EmptyDirectory()
    worker = WorkerProcess(spec, cwd.path)
    try:
        worker.start()
        answer = host()
        outcome = worker.call(inputs, host=answer, on_output=answer.printed)
        return {"ok": True, "result": outcome.result.get("result"), "error": None}
    except DyntoolsError as exc:
        return {"ok": False, "result": None, "error": exc.message, "reason": exc.reason}
    finally:
        worker.kill()
        cwd.remove()


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_the_gate_refuses_each_attack_script(tmp_path: Path, name: str) -> None:
    registry = tmp_path / "registry"
    with Dyntools(registry) as dt:
        outcome = dt.run_code(as_script(ATTACKS[name]), {})
    assert outcome.status == "refused"
    assert "DT201" in {f["code"] for f in outcome.findings}  # os, socket, sys
    assert outcome.trace == ()


def test_the_os_layers_alone_contain_each_attack_script(tmp_path: Path) -> None:
    """The gate bypassed and the Python layer off: a script's worker is a tool's worker."""
    escaped = []
    with targets(tmp_path / "targets") as made:
        for name in sorted(ATTACKS):
            outcome = run_unchecked_script(as_script(ATTACKS[name]), made.params(), tmp_path,
                                           PYTHON_LAYERS)
            assert "No module named" not in str(outcome.get("error")), outcome
            if succeeded(name, outcome, made):
                escaped.append((name, outcome))
    assert escaped == []


def test_the_control_shows_the_attacks_work_without_the_layers(tmp_path: Path) -> None:
    """The same harness with every layer off: the attacks do what they say (so the test
    above can fail)."""
    from dyntools.sandbox.limits import LAYERS

    with targets(tmp_path / "targets") as made:
        outcome = run_unchecked_script(as_script(ATTACKS["read_planted_file"]), made.params(),
                                       tmp_path, frozenset(LAYERS))
        assert succeeded("read_planted_file", outcome, made), outcome


@pytest.mark.parametrize("frame", [
    {"op": "http", "method": "GET", "url": "http://127.0.0.1/", "params": None,
     "headers": None},
    {"op": "call_tool", "name": "word_count"},
    {"op": "call_tool", "name": "word_count", "params": {}, "extra": 1},
    {"op": "call_tool", "name": "../word_count", "params": {}},
    {"op": "call_tool", "name": "Word Count", "params": {}},
    {"op": "call_tool", "name": "word_count", "params": {"x": float("nan")}},
    ["call_tool", "word_count", {}],
    "call_tool",
])
def test_forged_frames_are_violations(frame: Any) -> None:
    with pytest.raises(CapabilityViolation):
        host()(frame, 1e12)


def test_a_request_after_the_run_was_suspended_is_a_violation() -> None:
    made = host()
    made.waiting = {"tool": "word_count"}
    with pytest.raises(CapabilityViolation, match="after its run was suspended"):
        made({"op": "call_tool", "name": "word_count", "params": {}}, 1e12)


def test_the_host_counts_calls_whatever_the_worker_says() -> None:
    recorded = [CallRecord("word_count", {"text": "a"}, call_key("word_count", {"text": "a"}),
                           "ok", 1, 1.0, 1, {"words": 1}, None)]
    made = host(recorded=recorded, max_tool_calls=1,
                waited=("word_count", call_key("word_count", {"text": "b"})))
    frame = {"op": "call_tool", "name": "word_count", "params": {"text": "a"}}
    assert made(frame, 1e12) == {"ok": {"words": 1}}  # replayed, not called
    with pytest.raises(RunLimitExceeded):
        made({"op": "call_tool", "name": "word_count", "params": {"text": "b"}}, 1e12)


# ------------------------------------------------------- hostile scripts through run_code

# Each hostile script ends the run with a stable reason; nothing hangs, nothing crashes the
# host. Sizes are just past the caps so each case takes well under a second.
HOSTILE_RUNS = {
    # A tight loop of tool calls that swallows every error: the host ends it at the limit.
    "tool call loop": ("n = 0\nwhile True:\n    try:\n        tools.word_count(text='x')\n"
                       "    except Exception:\n        n += 1\nresult = {}\n", "run_limit"),
    "deep recursion": ("def f(n):\n    return f(n + 1)\nresult = {'v': f(0)}\n",
                       "runtime_error"),
    "deeply nested result": ("x = []\nfor i in range(100000):\n    x = [x]\n"
                             "result = {'x': x}\n", "bad_result"),
    "deeply nested params": ("x = []\nfor i in range(100000):\n    x = [x]\n"
                             "result = tools.word_count(text=x)\n", "runtime_error"),
    "huge result": ("result = {'x': 'y' * (2 * 1024 * 1024)}\n", "bad_result"),
    "huge output": ("for i in range(100):\n    print('z' * 10000)\nresult = {}\n",
                    "bad_result"),
}


@pytest.mark.parametrize("name", list(HOSTILE_RUNS))
def test_hostile_scripts_end_with_a_stable_reason(dt: Dyntools, name: str) -> None:
    source, reason = HOSTILE_RUNS[name]
    outcome = dt.run_code(source, limits={"timeout": 20, "max_tool_calls": 20})
    value = outcome.as_dict()
    assert (value["status"], value["error"]["reason"]) == ("error", reason), value
    if name == "tool call loop":
        assert len(value["trace"]) == 20  # exactly the limit, then the run ended
    assert dt.run_record(outcome.run_id).status == "error"


STASH = '''"""Tries to keep what each caller gave it."""

NAME = "stash"
DESCRIPTION = "Remembers values across calls."
PARAMS = {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}
EXAMPLES = [{"params": {"v": "a"}, "result": {"seen": ["a"]}}]
SEEN = []


def run(params):
    SEEN.append(params["v"])
    return {"seen": list(SEEN)}
'''


def test_two_runs_cannot_pass_data_through_a_tools_warm_worker(dt: Dyntools) -> None:
    """Run A leaves a secret in a tool's module state; run B, calling the same tool, does
    not see it (the worker that held A's state is spent, as for direct calls)."""
    dt.registry.add_version("stash", STASH, {"generator": "test"})
    first = dt.run_code("result = tools.stash(v='secret-of-A')\n")
    second = dt.run_code("result = tools.stash(v='b')\n")
    assert first.result == {"seen": ["secret-of-A"]}
    assert second.result == {"seen": ["b"]}
