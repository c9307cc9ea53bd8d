"""`dyntools exec` and `dyntools doctor` through the real CLI in a subprocess."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import dyntools


def test_exec_prints_the_result(tool):
    path = tool('''
        def run(params):
            return {"slug": re.sub(r"[^a-z0-9]+", "-", params["text"].lower()).strip("-")}
        ''', imports="import re")
    proc = dyntools("exec", str(path), "--params", '{"text": "Hello World"}')
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"slug": "hello-world"}


def test_exec_without_params_runs_with_an_empty_object_as_call_does(tool):
    path = tool('''
        def run(params):
            return {"given": sorted(params)}
        ''')
    proc = dyntools("exec", str(path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"given": []}
    assert dyntools("exec", str(path), "--params", "[1]").returncode == 2  # still an object


def test_exec_json_reports_output_and_layers(tool):
    path = tool('''
        def run(params):
            print("working")
            return {"ok": True}
        ''')
    proc = dyntools("exec", str(path), "--params", "{}", "--json")
    assert proc.returncode == 0, proc.stderr
    outcome = json.loads(proc.stdout)
    assert outcome["result"] == {"ok": True}
    assert outcome["output"] == "working\n"
    assert outcome["layers"]["restricted"]["active"] is True


def test_gate_rejection_exits_1_and_nothing_runs(tool, tmp_path):
    marker = tmp_path / "ran"
    path = tool(f'''
        def run(params):
            open({str(marker)!r}, "w")
            return {{}}
        ''')
    proc = dyntools("exec", str(path), "--params", "{}")
    assert proc.returncode == 1
    assert "gate/unsafe_source" in proc.stderr
    assert not marker.exists()


def test_infinite_loop_is_killed_at_the_timeout(tool):
    path = tool('''
        def run(params):
            while True:
                pass
        ''')
    proc = dyntools("exec", str(path), "--params", "{}", "--timeout", "0.5", "--json")
    assert proc.returncode == 5
    assert json.loads(proc.stdout)["error"]["reason"] == "timeout"


def test_memory_bomb_is_stopped(tool):
    path = tool('''
        def run(params):
            data = []
            while True:
                data.append("x" * 1000000)
        ''')
    proc = dyntools("exec", str(path), "--params", "{}", "--memory", "64", "--json")
    assert proc.returncode == 6, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["error"]["reason"] == "memory_limit"


def test_huge_output_is_a_typed_error(tool):
    path = tool('''
        def run(params):
            while True:
                print("x" * 1000)
        ''')
    proc = dyntools("exec", str(path), "--params", "{}", "--json")
    assert proc.returncode == 7
    error = json.loads(proc.stdout)["error"]
    assert error["reason"] == "bad_result"
    assert "printed more than" in error["message"]


@pytest.mark.parametrize("body", [
    "return {'numbers': {1, 2}}",
    "return [1, 2]",
    "return {'x': float('nan')}",
])
def test_non_json_results_are_typed_errors(tool, body):
    path = tool(f"def run(params):\n    {body}\n")
    proc = dyntools("exec", str(path), "--params", "{}", "--json")
    assert proc.returncode == 7, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["error"]["reason"] == "bad_result"


def test_runtime_error_shows_tool_lines(tool):
    path = tool('''
        def helper(value):
            return value["missing"]


        def run(params):
            return helper(params)
        ''')
    proc = dyntools("exec", str(path), "--params", "{}", "--json")
    assert proc.returncode == 4
    error = json.loads(proc.stdout)["error"]
    assert error["reason"] == "runtime_error"
    assert error["message"] == "KeyError: 'missing'"
    functions = [frame[1] for frame in error["details"]["trace"]]
    assert functions == ["run", "helper"]
    assert error["details"]["trace"][-1][2] == 'return value["missing"]'


def test_bad_params_are_a_usage_error(tool):
    path = tool("def run(params):\n    return {}\n")
    assert dyntools("exec", str(path), "--params", "[1]").returncode == 2
    assert dyntools("exec", str(path), "--params", "{}", "--require-layers", "bogus"
                    ).returncode == 2


def test_doctor_reports_every_layer():
    proc = dyntools("doctor", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    from dyntools.sandbox import LAYERS

    assert set(report["layers"]) == set(LAYERS)
    for entry in report["layers"].values():
        assert isinstance(entry["active"], bool) and entry["detail"]
    text = dyntools("doctor")
    assert text.returncode == 0
    assert "seccomp" in text.stdout


def test_exec_disable_layer_warns_and_switches_the_layer_off(tool):
    path = tool('''
        def run(params):
            return {"ok": True}
        ''')
    proc = dyntools("exec", str(path), "--params", "{}", "--json",
                    "--disable-layer", "seccomp", "--disable-layer", "mountns")
    assert proc.returncode == 0, proc.stderr
    assert "warning: sandbox layer(s) switched off: mountns, seccomp" in proc.stderr
    layers = json.loads(proc.stdout)["layers"]
    assert layers["seccomp"]["active"] is False
    assert layers["mountns"]["active"] is False
    assert layers["landlock_fs"]["active"] is True
    plain = dyntools("exec", str(path), "--params", "{}")
    assert "warning" not in plain.stderr


def test_exec_disable_layer_refuses_unknown_or_required_names(tool):
    path = tool('''
        def run(params):
            return {}
        ''')
    proc = dyntools("exec", str(path), "--params", "{}", "--disable-layer", "seccompp")
    assert proc.returncode == 2
    assert "unknown layer" in proc.stderr
    both = dyntools("exec", str(path), "--params", "{}", "--disable-layer", "seccomp",
                    "--require-layers", "seccomp")
    assert both.returncode == 2


def test_exec_require_layers_trusts_the_kernel_view(tool):
    """A required layer switched off is `layer_unavailable` (exit 10) before the tool runs."""
    path = tool('''
        def run(params):
            return {}
        ''')
    proc = dyntools("exec", str(path), "--params", "{}", "--disable-layer", "mountns",
                    "--require-layers", "all")
    assert proc.returncode == 2  # all includes mountns: a contradiction, refused as usage
    proc = dyntools("exec", str(path), "--params", "{}", "--disable-layer", "netns",
                    "--require-layers", "mountns,seccomp,userns")
    assert proc.returncode == 0, proc.stderr
