"""`dyntools serve-mcp` over stdio against a bare server written with the same mcp SDK, both
started and driven in the same rounds.

    bare      the SDK's low-level `Server` over `stdio_server`, one trivial tool (echo_text),
              no dyntools code: the floor for "an MCP server made with this SDK"
    dyntools  `dyntools serve-mcp --registry R` with its defaults (every offered generator,
              the registry watch on), R holding one trivial tool (echo_text)

Per round, each server is started as a process and driven over its pipes with JSON-RPC lines
(handshake era): `initialize` is written at once, so its answer marks the moment the server
can serve; then `notifications/initialized` and `tools/list`; then `tools/call` of echo_text
WARMUP times (dyntools' first call starts a sandboxed worker) and CALLS more, timed one by
one. Printed: the best and the median over the rounds of the time from process start to the
`initialize` answer (target: dyntools within 2x the bare server) and to the first
`tools/list` answer, the CPU the server process had used when it answered `initialize`
(from /proc), and the median warm `tools/call` round trip (target 1.5x the bare server's
trivial tool; dyntools' call crosses into a sandboxed worker process, the bare one does
not). Servers are started alternately, so load from elsewhere on the machine falls on both.

Bytecode is cached as in an installed package (these machines set PYTHONDONTWRITEBYTECODE=1,
which would otherwise compile every dyntools module on every start): the servers run with
PYTHONPYCACHEPREFIX pointing at a folder of this run, filled by a first, unmeasured round.

    .venv/bin/python bench/mcp.py [--rounds 7] [--calls 200] [--compare CHECKOUT]

--compare also starts serve-mcp from another checkout of dyntools in the same rounds (its
source folder first on PYTHONPATH, through its own CLI entry point), e.g. main's worktree.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from jsonrpc_lines import Session

TOOL = '''"""Gives its text back."""

NAME = "echo_text"
DESCRIPTION = "Gives its text back."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [{"params": {"text": "hi"}, "result": {"text": "hi"}}]


def run(params):
    return {"text": params["text"]}
'''

# The bare server: what anyone writes with the SDK's low-level Server (the API dyntools'
# server is built on), with the same result shape (JSON text and structuredContent).
BARE = '''
import json

import anyio
import mcp_types as types
from mcp.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(
        name="echo_text", description="Gives its text back.", input_schema=SCHEMA)])


async def call_tool(ctx, params):
    value = {"text": (params.arguments or {}).get("text")}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(value))],
        structured_content=value, is_error=False)


async def main():
    server = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, options)


anyio.run(main)
'''

# The console script's entry point of whichever checkout is first on the path.
ENTRY = ("import sys; import dyntools.cli as cli; sys.argv[0] = 'dyntools'; "
         "sys.exit((getattr(cli, 'script', None) or getattr(cli, 'run', None) or cli.main)())")

WARMUP = 20


def measure(argv: list[str], env: dict[str, str], cwd: Path, calls: int) -> dict[str, float]:
    """One start and session: seconds to the initialize and first tools/list answers, CPU at
    initialize, and the median warm tools/call round trip."""
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    session = Session(argv, env, cwd)
    try:
        ready = session.request("initialize", {
            "protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}})
        initialized = time.perf_counter() - session.started
        cpu = session.cpu_seconds()
        assert ready["result"]["protocolVersion"]
        session.send("notifications/initialized", notification=True)
        listed = session.request("tools/list")
        first_list = time.perf_counter() - session.started
        if "echo_text" not in [tool["name"] for tool in listed["result"]["tools"]]:
            raise SystemExit(f"{argv[-3:]}: echo_text is not listed")
        call = {"name": "echo_text", "arguments": {"text": "hi"}}
        for _ in range(WARMUP):
            answer = session.request("tools/call", call)
            if answer["result"].get("isError"):
                raise SystemExit(f"echo_text failed: {answer['result']['content']}")
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            session.request("tools/call", call)
            times.append(time.perf_counter() - start)
    finally:
        session.close()
    return {"initialize": initialized, "list": first_list, "cpu": cpu,
            "call": statistics.median(times)}


def build_registry(root: Path) -> None:
    from dyntools.base.log import configure_logging
    from dyntools.gate.policy import load_policy
    from dyntools.registry import Registry

    configure_logging("error")
    Registry.open(root, load_policy()).add_version("echo_text", TOOL.encode(),
                                                   {"generator": "bench"})


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--compare", type=Path, default=None,
                        help="another checkout of dyntools to start in the same rounds")
    args = parser.parse_args()
    dyntools = shutil.which("dyntools", path=str(Path(sys.executable).parent))
    if dyntools is None:
        raise SystemExit("no dyntools console script beside this interpreter: pip install -e .")
    base = Path(tempfile.mkdtemp(prefix="dyntools-mcp-", dir=os.environ.get("TMPDIR", "/tmp")))
    try:
        registry = base / "registry"
        build_registry(registry)
        bare = base / "bare_server.py"
        bare.write_text(BARE)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("DYNTOOLS_") and k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
        serve = ["serve-mcp", "--registry", str(registry)]
        servers = {"bare": [sys.executable, str(bare)], "dyntools": [dyntools, *serve]}
        envs = {"bare": env, "dyntools": env}
        if args.compare is not None:
            servers["dyntools (compare)"] = [sys.executable, "-c", ENTRY, *serve]
            envs["dyntools (compare)"] = {**env, "PYTHONPATH": str(args.compare.resolve()),
                                          "PYTHONPYCACHEPREFIX": str(base / "pycache-compare")}
        for key, argv in servers.items():  # fill the bytecode caches; fail early
            measure(argv, envs[key], base, 5)
        runs: dict[str, list[dict[str, float]]] = {key: [] for key in servers}
        for _ in range(args.rounds):
            for key, argv in servers.items():
                runs[key].append(measure(argv, envs[key], base, args.calls))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.rounds} "
          f"alternating rounds; {args.calls} warm tools/call per session")

    def stat(key: str, what: str, pick: Any) -> float:
        return float(pick(run[what] for run in runs[key]))

    print(f"  {'server':<20} {'initialize':>19} {'first tools/list':>19} {'CPU at init':>12} "
          f"{'warm tools/call':>16}")
    print(f"  {'':<20} {'best':>9} {'median':>9} {'best':>9} {'median':>9} {'median':>12} "
          f"{'median':>16}")
    for key in servers:
        print(f"  {key:<20} {stat(key, 'initialize', min) * 1000:7.0f}ms "
              f"{stat(key, 'initialize', statistics.median) * 1000:7.0f}ms "
              f"{stat(key, 'list', min) * 1000:7.0f}ms "
              f"{stat(key, 'list', statistics.median) * 1000:7.0f}ms "
              f"{stat(key, 'cpu', statistics.median) * 1000:10.0f}ms "
              f"{stat(key, 'call', statistics.median) * 1e6:13.0f}us")
    for key in [k for k in servers if k != "bare"]:
        ready = stat(key, "initialize", min) / stat("bare", "initialize", min)
        ready_m = (stat(key, "initialize", statistics.median)
                   / stat("bare", "initialize", statistics.median))
        listed = stat(key, "list", min) / stat("bare", "list", min)
        call = stat(key, "call", statistics.median) / stat("bare", "call", statistics.median)
        print(f"  {key}: ready {ready:.2f}x the bare server ({ready_m:.2f}x median), target "
              f"2x: {'OK' if ready <= 2.0 else 'MISSED'}; first tools/list {listed:.2f}x; "
              f"warm tools/call {call:.2f}x, target 1.5x: "
              f"{'OK' if call <= 1.5 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
