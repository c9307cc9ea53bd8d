"""What the `dyntools` command imports before it does its job (bench/startup.py measures the
time): `--version` only the CLI's entry and click, and `call` and `check` none of the
machinery they do not use. Click reads every command line (one parser), so click and what it
imports are loaded by every command; the pins below are everything else."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from dyntools.cli import main
from dyntools.cli.app import COMMANDS, load_commands
from tests.support.environment import env_without_dyntools

# Imported by none of the commands below: the async stack, the rich console, the writer's
# lock, the watch, the model SDKs, the MCP server, generation (any of it: the generators'
# names and models too), verification, the other commands (ensure and check included), the
# capability broker (a tool that declares no CAPABILITIES), Ray.
NEVER_ON_CALL = (
    "asyncio", "structlog", "rich", "filelock", "watchdog", "anthropic", "openai", "mcp",
    "httpx", "pydantic", "ray", "dyntools.generators", "dyntools.pipeline.verify",
    "dyntools.catalog",
    # the broker's side of capabilities (a call's host and the operator's policy, which says
    # what "none" is, are on the way: capabilities.hostcalls and capabilities.policy)
    "dyntools.capabilities.broker", "dyntools.capabilities.replay",
    "dyntools.capabilities.pinning", "dyntools.capabilities.redaction",
    "dyntools.executors.ray_executor", "dyntools.executors.node_actor",
    "dyntools.registry.watch", "dyntools.registry.review", "dyntools.cli.registry_cmd",
    # the decision chain: its checks and the record of accepted heads only with trusted keys,
    # its writing only for a decision
    "dyntools.registry.chain", "dyntools.registry.chainwrite", "dyntools.registry.freshness",
    "dyntools.cli.review_cmd", "dyntools.cli.mcp_cmd", "dyntools.cli.sandbox_cmd",
    "dyntools.cli.ensure_cmd", "dyntools.cli.check_cmd", "dyntools.cli.ui_cmd",
    # a library's health and repair (a failed call's record only when a call fails)
    "dyntools.pipeline.health", "dyntools.pipeline.reverify", "dyntools.pipeline.duplicates",
    "dyntools.pipeline.usage", "dyntools.pipeline.repair", "dyntools.pipeline.contract",
    "dyntools.pipeline.failures", "dyntools.pipeline.failed_calls", "dyntools.cli.health_cmd",
    # and the standard library's corners the call path has no use for: secrets and hmac,
    # thread pools.
    "secrets", "hmac", "concurrent",
)


def _imports_of(argv: list[str], cwd: Path) -> tuple[int, str, list[str]]:
    """Run the console script's entry point in a fresh interpreter; its exit code, its stdout
    and every module it imported."""
    probe = (
        "import sys\n"  # not json: a check must be seen to load it or not
        f"sys.argv = {['dyntools', *argv]!r}\n"
        "from dyntools.cli import script\n"
        "code = 0\n"
        "try:\n"
        "    script()\n"
        "except SystemExit as exc:\n"
        "    code = exc.code or 0\n"
        "sys.stdout.flush()\n"
        "sys.stderr.write('\\n' + repr([code, sorted(sys.modules)]) + '\\n')\n"
    )
    env = env_without_dyntools()
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120, check=True)
    code, modules = ast.literal_eval(done.stderr.strip().splitlines()[-1])
    return code, done.stdout, modules


# `dyntools --version`: the console script's module, the click group (app.py, which imports no
# command), and the signal handlers the console script installs before click's import.
ON_VERSION = ["dyntools", "dyntools.base", "dyntools.base.interrupts", "dyntools.cli",
              "dyntools.cli.app"]


def test_version_imports_only_the_entry_and_click(tmp_path: Path) -> None:
    code, out, modules = _imports_of(["--version"], tmp_path)
    assert code == 0
    assert out == CliRunner().invoke(main, ["--version"]).stdout
    assert [m for m in modules if m.startswith("dyntools")] == ON_VERSION
    assert "click" in modules


def test_call_imports_only_what_a_call_uses(tmp_path: Path) -> None:
    from dyntools.registry import Registry
    from tests.registry.helpers import tool_source

    Registry.open(tmp_path / "reg").add_version("echo_tool", tool_source(answer="1"), {})
    code, out, modules = _imports_of(
        ["call", "echo_tool", "--params", "{}", "--registry", str(tmp_path / "reg")], tmp_path)
    assert (code, json.loads(out)) == (0, {"answer": "1"})
    assert [m for m in NEVER_ON_CALL if m in modules or any(
        n.startswith(m + ".") for n in modules)] == []


# What `dyntools check` of an accepted ASCII file never loads: the error tree (only an
# allow-list that fails to load needs it), unicodedata (the first non-ASCII character),
# pathlib and tomllib (the shipped allow-list's tables are cached), structlog and the sandbox.
# (Click's own imports are loaded by every command: tokenize and inspect among them.)
NEVER_ON_CHECK = ("dyntools.errors", "unicodedata", "pathlib", "tomllib", "structlog",
                  "dyntools.sandbox")
# Of the registry, a check loads only the allow-list's loader (registry/policyload.py) and the
# package it sits in, whose names resolve lazily.
REGISTRY_ON_CHECK = ["dyntools.registry", "dyntools.registry.policyload"]


def test_check_imports_only_what_a_check_uses(tmp_path: Path) -> None:
    source = (Path(__file__).parents[1] / "dyntools" / "generators" / "templates" /
              "slugify_text.py")
    code, out, modules = _imports_of(["check", str(source)], tmp_path)
    assert (code, out.endswith(": accepted\n")) == (0, True)
    assert "jsonschema_rs" in modules  # the check ran the PARAMS rules
    assert [m for m in NEVER_ON_CHECK if m in modules or any(
        n.startswith(m + ".") for n in modules)] == []
    assert sorted(m for m in modules if m.partition(".")[0] == "dyntools"
                  and m.startswith("dyntools.registry")) == REGISTRY_ON_CHECK


def test_the_command_table_is_what_the_modules_register() -> None:
    load_commands()
    assert sorted(main.commands) == sorted(COMMANDS)
    for name, command in main.commands.items():
        assert command.callback is not None
        assert command.callback.__module__ == f"dyntools.cli.{COMMANDS[name]}", name


def test_help_lists_every_command() -> None:
    listed = CliRunner().invoke(main, ["--help"]).stdout
    assert all(f"  {name} " in listed for name in COMMANDS), listed


def test_the_pipeline_names_the_loops_default_attempts() -> None:
    # Dyntools' default max_attempts is generate_gated's, named in pipeline/core.py so that a
    # call need not import the generation loop.
    from dyntools.generators.loop import DEFAULT_MAX_ATTEMPTS
    from dyntools.pipeline.core import DEFAULT_MAX_ATTEMPTS as PIPELINE_DEFAULT

    assert PIPELINE_DEFAULT == DEFAULT_MAX_ATTEMPTS
