"""--executor and --ray-address on call, ensure, serve-mcp and doctor, through the real CLI
against the session's local Ray cluster."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from dyntools.cli import main
from dyntools.registry import Registry

from .conftest import require_ray

require_ray()


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def test_call_runs_on_the_cluster(registry: Registry, ray_cluster: str) -> None:
    result = run("call", "nap_tool", "--params", '{"ms": 1}', "--registry", str(registry.root),
                 "--executor", "ray", "--ray-address", ray_cluster, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["result"] == {"tag": "v1"}


def test_the_environment_chooses_the_executor(
        registry: Registry, ray_cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    from dyntools.executors import ray_executor

    real = ray_executor.RayExecutor.pool

    def spy(self: Any, *args: Any) -> Any:
        seen.append(self.address)
        return real(self, *args)

    monkeypatch.setattr(ray_executor.RayExecutor, "pool", spy)
    result = run("call", "nap_tool", "--params", "{}", "--registry", str(registry.root),
                 env={"DYNTOOLS_EXECUTOR": "ray", "DYNTOOLS_RAY_ADDRESS": ray_cluster})
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"tag": "v1"} and seen == [ray_cluster]


def test_ensure_generates_locally_and_calls_on_the_cluster(
        tmp_path: Path, ray_cluster: str) -> None:
    result = run("ensure", "slugify_text", "--params", '{"text": "Hello World"}',
                 "--registry", str(tmp_path / "reg"), "--executor", "ray",
                 "--ray-address", ray_cluster, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["result"] == {"slug": "hello-world"}


def test_doctor_reports_every_node(ray_cluster: str) -> None:
    from dyntools.sandbox.doctor import probe_layers

    result = run("doctor", "--executor", "ray", "--ray-address", ray_cluster, "--json",
                 "--require-layers", "all")
    report = json.loads(result.stdout)
    assert report["executor"] == "ray" and len(report["nodes"]) == 1
    node = report["nodes"][0]
    local_inactive = sorted(n for n, e in probe_layers().items() if not e["active"])
    assert node["required_missing"] == local_inactive  # the same machine, the same layers
    assert result.exit_code == (10 if local_inactive else 0)
    text = run("doctor", "--executor", "ray", "--ray-address", ray_cluster)
    assert "executor ray, 1 node(s)" in text.output and "seccomp" in text.output


def test_the_executor_options_are_checked() -> None:
    for command in ("call", "ensure", "serve-mcp", "doctor"):
        help_text = run(command, "--help").output
        assert "--executor [local|ray]" in help_text and "--ray-address" in help_text
    result = CliRunner().invoke(main, ["doctor", "--executor", "dask"])
    assert result.exit_code == 2 and "dask" in result.output
    result = CliRunner().invoke(main, ["doctor", "--ray-address", "127.0.0.1:1"])
    assert result.exit_code == 2 and "--executor ray" in result.output
