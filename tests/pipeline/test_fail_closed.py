"""Fail closed by default (issue 26): on a host below the sandbox's default minimum (here: no
seccomp, simulated as a host without libseccomp, tests/support/missing_layer.py), every path
that runs tool code refuses with `layer_unavailable` (exit 10) and one message naming the
missing layer, `dyntools doctor` and the opt-in; `--allow-weaker-sandbox`, DYNTOOLS_ALLOW_WEAKER_SANDBOX=1 or
`Dyntools(..., allow_weaker_sandbox=True)` runs it anyway, and the audit log says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from dyntools.adapters import dispatch_tool_uses
from dyntools.catalog.core import Catalog
from dyntools.cli import main
from dyntools.errors import LayerUnavailable
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry
from tests.support.cli import run_cli
from tests.support.environment import env_without_dyntools
from tests.support.missing_layer import SIMULATED, env_without_seccomp, no_seccomp

REPO = Path(__file__).resolve().parents[2]
SLUGIFY = (REPO / "dyntools" / "generators" / "templates" / "slugify_text.py").read_text("utf-8")
HELLO = '{"text": "Hello World"}'
OPT_IN = "DYNTOOLS_ALLOW_WEAKER_SANDBOX"


def assert_refused(code: int, out: str, err: str) -> None:
    """The one message: exit 10, the missing layer and its reason, doctor and the opt-in."""
    assert code == 10, (out, err)
    line = next(line for line in err.splitlines() if line.startswith("error: "))
    # ensure, call, exec: `error: STATION/REASON: message` (a verification's first worker
    # is the load station's, a call's the execute station's); approve: `error: message`
    message = line.removeprefix("error: load/layer_unavailable: ").removeprefix(
        "error: execute/layer_unavailable: ").removeprefix("error: ")
    assert message.startswith("the sandbox here is weaker than the default minimum"), line
    assert f"seccomp ({SIMULATED})" in line
    assert "dyntools doctor" in line
    assert f"--allow-weaker-sandbox, {OPT_IN}=1 or Dyntools(..., allow_weaker_sandbox=True)" \
        in line


def audit_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


@pytest.fixture
def weak_env(tmp_path: Path) -> dict[str, str]:
    return env_without_seccomp(tmp_path / "no-seccomp")


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    root = tmp_path / "reg"
    Registry.open(root).add_version("slugify_text", SLUGIFY, {"generator": "test"})
    return root


def test_exec_refuses_and_each_opt_in_runs(tmp_path: Path, weak_env: dict[str, str]) -> None:
    tool = tmp_path / "slugify_text.py"
    tool.write_text(SLUGIFY, "utf-8")
    argv = ["exec", str(tool), "--params", HELLO]
    assert_refused(*run_cli(argv, tmp_path, env=weak_env))
    for how, env in ((["--allow-weaker-sandbox"], weak_env),
                     ([], {**weak_env, OPT_IN: "1"})):
        code, out, err = run_cli([*argv, *how], tmp_path, env=env)
        assert (code, json.loads(out)) == (0, {"slug": "hello-world"}), err
    code, _, err = run_cli(argv, tmp_path, env={**weak_env, OPT_IN: "true"})  # only 1
    assert code == 10, err


def test_exec_disable_layer_is_the_opt_in(tmp_path: Path) -> None:
    tool = tmp_path / "slugify_text.py"
    tool.write_text(SLUGIFY, "utf-8")
    code, out, err = run_cli(["exec", str(tool), "--params", HELLO, "--disable-layer",
                              "seccomp"], tmp_path)
    assert (code, json.loads(out)) == (0, {"slug": "hello-world"}), err
    assert "warning: sandbox layer(s) switched off: seccomp" in err


def test_call_refuses_then_runs_with_the_opt_in_recorded(tmp_path: Path, registry: Path,
                                                         weak_env: dict[str, str]) -> None:
    audit = tmp_path / "audit.jsonl"
    argv = ["call", "slugify_text", "--registry", str(registry), "--params", HELLO,
            "--audit-log", str(audit)]
    assert_refused(*run_cli(argv, tmp_path, env=weak_env))
    assert not [e for e in audit_events(audit) if e["event"].startswith("sandbox.")]
    code, out, err = run_cli([*argv, "--allow-weaker-sandbox"], tmp_path, env=weak_env)
    assert (code, json.loads(out), err) == (0, {"slug": "hello-world"}, "")
    events = {e["event"]: e for e in audit_events(audit)}
    assert events["sandbox.weaker_allowed"]["source"] == "allow_weaker_sandbox=True"
    assert events["sandbox.below_minimum"]["missing"] == ["seccomp"]
    code, _, _ = run_cli(argv, tmp_path, env={**weak_env, OPT_IN: "1"})
    assert code == 0
    sources = [e["source"] for e in audit_events(audit) if e["event"] == "sandbox.weaker_allowed"]
    assert sources[-1] == f"{OPT_IN}=1"


def test_ensure_refuses_and_persists_nothing(tmp_path: Path,
                                              weak_env: dict[str, str]) -> None:
    root = tmp_path / "reg"
    argv = ["ensure", "slugify_text", "--registry", str(root), "--params", HELLO]
    assert_refused(*run_cli(argv, tmp_path, env=weak_env))
    assert Registry.open(root).names() == []
    code, out, err = run_cli([*argv, "--allow-weaker-sandbox"], tmp_path, env=weak_env)
    assert code == 0, err
    assert out.splitlines()[-1] == '{"slug": "hello-world"}'


def test_approve_refuses_and_the_version_stays_pending(tmp_path: Path,
                                                      weak_env: dict[str, str]) -> None:
    root = tmp_path / "reg"
    env = env_without_dyntools()
    assert run_cli(["init", str(root), "--approval", "always"], tmp_path, env=env)[0] == 0
    assert run_cli(["ensure", "slugify_text", "--registry", str(root)], tmp_path,
                   env=env)[0] == 17
    argv = ["approve", "slugify_text", "1", "--registry", str(root), "--reason", "read it"]
    assert_refused(*run_cli(argv, tmp_path, env=weak_env))
    assert Registry.open(root).get("slugify_text", 1).status == "pending"
    code, _, err = run_cli([*argv, "--allow-weaker-sandbox"], tmp_path, env=weak_env)
    assert code == 0, err
    assert Registry.open(root).get("slugify_text", 1).status == "approved"


def test_the_library_catalog_and_an_adapter_refuse(registry: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    no_seccomp(monkeypatch)
    with Catalog(Dyntools(registry), generate=False) as catalog:
        catalog.add("add", lambda p: {"sum": p["a"] + p["b"]}, description="Adds",
                    params={"type": "object"})
        assert catalog.call("add", {"a": 1, "b": 2}) == {"sum": 3}  # in-process, by design
        with pytest.raises(LayerUnavailable) as info:
            catalog.call("slugify_text", {"text": "A b"})
        assert info.value.details["missing"] == ["seccomp"]
        [result] = dispatch_tool_uses(catalog, [{"type": "tool_use", "id": "t1",
                                                 "name": "slugify_text",
                                                 "input": {"text": "A b"}}])
        assert result["is_error"] is True
        assert json.loads(result["content"])["error"]["reason"] == "layer_unavailable"
    with Catalog(Dyntools(registry, allow_weaker_sandbox=True), generate=False) as catalog:
        assert catalog.call("slugify_text", {"text": "A b"}) == {"slug": "a-b"}


def test_generation_through_the_catalog_refuses_before_anything_is_persisted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    no_seccomp(monkeypatch)
    with Catalog(Dyntools(tmp_path / "reg")) as catalog, pytest.raises(LayerUnavailable):
        catalog.resolve("slugify_text")
    assert Registry.open(tmp_path / "reg").names() == []


def test_the_environment_opts_the_library_in(registry: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    no_seccomp(monkeypatch)
    monkeypatch.setenv(OPT_IN, "1")  # this test only
    with Dyntools(registry) as dt:
        assert dt.allow_weaker_sandbox is True
        assert dt.call("slugify_text", {"text": "A b"}) == {"slug": "a-b"}
    with Dyntools(registry, allow_weaker_sandbox=False) as dt, \
            pytest.raises(LayerUnavailable):  # the argument decides
        dt.call("slugify_text", {"text": "A b"})


def test_doctor_shows_the_minimum_and_the_environment_variable() -> None:
    for value, verdict in ((None, " is unset: no opt-in (only 1 opts in)"),
                           ("yes", "='yes': no opt-in (only 1 opts in)"),
                           ("1", "='1': opts in: tool code may run below the default minimum")):
        env = {OPT_IN: value} if value is not None else {}
        result = CliRunner().invoke(main, ["doctor"], env=env)
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert lines[-2] == ("default minimum (seccomp, and mountns with userns or "
                             "landlock_fs): met; tool code runs here")
        assert lines[-1] == f"{OPT_IN}{verdict}"
    report = json.loads(CliRunner().invoke(main, ["doctor", "--json"], env={OPT_IN: "1"}).stdout)
    assert report["minimum"] == {"rule": "seccomp, and mountns with userns or landlock_fs",
                                 "met": True, "missing": [], "tool_code_runs": True}
    assert report["allow_weaker_sandbox_env"] == {"name": OPT_IN, "value": "1",
                                                  "allows_weaker": True}


def test_doctor_says_when_the_minimum_is_not_met(monkeypatch: pytest.MonkeyPatch) -> None:
    no_seccomp(monkeypatch)
    result = CliRunner().invoke(main, ["doctor"], env={OPT_IN: None})
    assert result.exit_code == 0  # doctor reports; the refusal belongs to tool code
    assert ("default minimum (seccomp, and mountns with userns or landlock_fs): NOT MET, "
            "missing seccomp; tool code does not run here") in result.stdout


def test_every_command_that_runs_tool_code_takes_the_opt_in() -> None:
    from dyntools.cli.app import load_commands

    load_commands()
    runs_tool_code = ("exec", "ensure", "call", "approve", "serve-mcp", "ui")
    for name in runs_tool_code:
        options = {opt for p in main.commands[name].params for opt in p.opts}
        assert "--allow-weaker-sandbox" in options, name
