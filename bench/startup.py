"""Start-up of the `dyntools` command, against a bare interpreter start measured in the same run.

    baseline  python -I -S -c pass (the same interpreter)
    site      python -c pass (site, and the environment's .pth files)
    floor     the gate's floor: site, ast, json and jsonschema-rs, loaded as the
              gate loads them, and the interpreter's exit; no dyntools code of its own
              and no click
    floor+click  the same and click, the one argument parser: no `dyntools check` can
              start faster (what is left for dyntools' own code is check - floor+click)
    version   dyntools --version                                target within 6x the baseline
    check     dyntools check FILE (one tool file)               target within 8x
    call-1    dyntools call NAME on a registry of 1 version     target within 15x
              (a cold worker: every process starts its own)
    call-1k   the same call on a registry of 1,000 versions     target within 1.2x call-1
              (--tools x --versions; NAME is one of them)

Runs are interleaved (one of each per round), so load from other processes on the machine
falls on every command alike; the best of the rounds is the figure least disturbed by that
load, the median is printed beside it, and so is the median CPU time of the command with the
processes it waited for (a cold worker's included): a call whose worker starts while the host
works takes less wall time than CPU time when a second core is free. The machine's load
average is printed first. --imports N then prints the N costliest top-level imports of the
call (one more run, under -X importtime).

Every module's bytecode is cached, as in an installed package: these machines set
PYTHONDONTWRITEBYTECODE=1, which would otherwise compile every dyntools module from source
on every start. The commands run with bytecode writing on and PYTHONPYCACHEPREFIX pointing
at a folder of this run (filled by a first, unmeasured run of each), so nothing is written
into the source tree.

    .venv/bin/python bench/startup.py [--rounds 15] [--tools 100] [--versions 10]
                                      [--compare CHECKOUT] [--imports N]

--compare runs the same commands, in the same rounds, from another checkout of dyntools (its
source folder first on PYTHONPATH, through its own CLI entry point), e.g. main's worktree:
the figures before and after a change, measured together.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOL = '''"""Counts the words of a text and turns it into a slug (variant @V@)."""
import re

NAME = "@NAME@"
DESCRIPTION = "Counts the words of a text and turns it into a slug (variant @V@)."
PARAMS = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}
EXAMPLES = [{"params": {"text": "Hello World"}, "result": {"words": 2, "slug": "hello-world"}}]
VARIANT = @V@


def run(params):
    text = params["text"]
    return {"words": len(text.split()), "slug": re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")}
'''


# The console script's entry point of whichever checkout is first on the path (`script`
# here; older checkouts have `run`, or only the click group `main`).
ENTRY = ("import sys; import dyntools.cli as cli; sys.argv[0] = 'dyntools'; "
         "sys.exit((getattr(cli, 'script', None) or getattr(cli, 'run', None) or cli.main)())")


def tool_source(name: str, variant: int) -> bytes:
    return TOOL.replace("@NAME@", name).replace("@V@", str(variant)).encode()


def build_registry(root: Path, tools: int, versions: int) -> None:
    from dyntools.base.log import configure_logging
    from dyntools.gate.policy import load_policy
    from dyntools.registry import Registry

    configure_logging("error")
    registry = Registry.open(root, load_policy())
    for t in range(tools):
        for v in range(versions):
            name = f"tool_{t:03d}"
            registry.add_version(name, tool_source(name, v), {"generator": "bench"})


CPU: dict[tuple[str, ...], list[float]] = {}  # argv -> CPU seconds of each timed run


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Wall seconds of one run; its CPU seconds (the command and every process it waited
    for: a cold worker too) are kept in CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n"
                         f"{done.stderr.decode(errors='replace')}")
    CPU.setdefault(tuple(argv), []).append(
        after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return elapsed


def import_breakdown(argv: list[str], env: dict[str, str], cwd: Path, top: int) -> None:
    """The command once more under -X importtime: its `top` costliest top-level imports
    (each with everything it imported first), and their sum."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", ENTRY, *argv[1:]],
                          env=env, cwd=cwd, capture_output=True, text=True, check=False)
    rows = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[0].startswith("import time:") and \
                not parts[2].startswith("  ") and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].strip()))
    total = sum(us for us, _ in rows)
    print(f"  imports of `{' '.join(['dyntools', *argv[1:3]])}` (-X importtime, which adds "
          f"its own cost): {total / 1000:.1f} ms in all")
    for us, name in sorted(rows, reverse=True)[:top]:
        print(f"    {us / 1000:6.1f} ms  {name}")


# What a process that runs the gate loads before any of dyntools' own code: the interpreter
# with site, the standard library modules the gate is built on, and jsonschema-rs as the
# gate loads it (dyntools.base.jsonschema_safe, a leaf, is its loader); it ends as the console
# script does, with the interpreter's own exit. `check` cannot be faster.
GATE_FLOOR = ("import ast, json\n"
              "from dyntools.base.jsonschema_safe import _engine\n_engine()")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--versions", type=int, default=10)
    parser.add_argument("--compare", type=Path, default=None,
                        help="another checkout of dyntools to measure in the same rounds")
    parser.add_argument("--imports", type=int, default=0, metavar="N",
                        help="then print the N costliest top-level imports of the call")
    args = parser.parse_args()
    dyntools = shutil.which("dyntools", path=str(Path(sys.executable).parent))
    if dyntools is None:
        raise SystemExit("no dyntools console script beside this interpreter: pip install -e .")
    base = Path(tempfile.mkdtemp(prefix="dyntools-startup-",
                                 dir=os.environ.get("TMPDIR", "/tmp")))
    try:
        one, many = base / "one", base / "many"
        started = time.perf_counter()
        build_registry(one, 1, 1)
        build_registry(many, args.tools, args.versions)
        built = time.perf_counter() - started
        check_file = base / "tool_000.py"
        check_file.write_bytes(tool_source("tool_000", 0))
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("DYNTOOLS_") and k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
        params = ["--params", '{"text": "Hello World"}']
        commands = {
            "baseline": [sys.executable, "-I", "-S", "-c", "pass"],
            "site": [sys.executable, "-c", "pass"],
            "floor": [sys.executable, "-c", GATE_FLOOR],
            "floor+click": [sys.executable, "-c", "import click\n" + GATE_FLOOR],
            "version": [dyntools, "--version"],
            "check": [dyntools, "check", str(check_file)],
            "call-1": [dyntools, "call", "tool_000", "--registry", str(one), *params],
            "call-1k": [dyntools, "call", "tool_000", "--registry", str(many), *params],
        }
        envs = {key: env for key in commands}
        if args.compare is not None:
            other = {**env, "PYTHONPATH": str(args.compare.resolve()),
                     "PYTHONPYCACHEPREFIX": str(base / "pycache-compare")}
            for key in ("version", "check", "call-1", "call-1k"):
                commands[f"{key} (compare)"] = [sys.executable, "-c", ENTRY,
                                                *commands[key][1:]]
                envs[f"{key} (compare)"] = other
        # From a folder of this run: `python -c` puts the working folder first on sys.path.
        for key, argv in commands.items():  # warm the caches; fail early on a broken command
            timed(argv, envs[key], base)
        CPU.clear()
        runs: dict[str, list[float]] = {key: [] for key in commands}
        for _ in range(args.rounds):
            for key, argv in commands.items():
                runs[key].append(timed(argv, envs[key], base))
        cpu = {key: statistics.median(CPU[tuple(argv)]) for key, argv in commands.items()}
        if args.imports:
            import_breakdown(commands["call-1"], env, base, args.imports)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    best = {key: min(values) for key, values in runs.items()}
    median = {key: statistics.median(values) for key, values in runs.items()}
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{args.rounds} interleaved rounds; registries built in {built:.1f} s "
          f"(1 version; {args.tools} tools x {args.versions} versions)")
    print(f"  {'command':<46} {'best':>8} {'median':>8} {'CPU':>8}   ratio best (median)")
    rows = [
        ("baseline", "python -I -S -c pass", "baseline", None),
        ("site", "python -c pass (with site, the venv's .pth)", "baseline", None),
        ("floor", "what the gate cannot start without (FLOOR)", "baseline", None),
        ("floor+click", "FLOOR and click (what `check` cannot beat)", "baseline", None),
        ("version", "dyntools --version", "baseline", 6.0),
        ("check", "dyntools check FILE", "baseline", 8.0),
        ("call-1", "dyntools call, registry of 1 (cold worker)", "baseline", 15.0),
        ("call-1k", f"dyntools call, registry of {args.tools * args.versions}", "baseline",
         None),
    ]
    for key, label, against, target in rows:
        ratio, ratio_m = best[key] / best[against], median[key] / median[against]
        verdict = "" if target is None else (
            f"  x baseline, target {target:g}x: {'OK' if ratio <= target else 'MISSED'}")
        print(f"  {label:<46} {best[key] * 1000:6.1f}ms {median[key] * 1000:6.1f}ms "
              f"{cpu[key] * 1000:6.1f}ms   {ratio:5.2f}x ({ratio_m:.2f}x){verdict}")
    if args.compare is not None:
        print(f"  the same commands from {args.compare} (before):")
        for name, label, against, _ in rows[1:]:
            key = f"{name} (compare)"
            if key not in best:  # measured once (the interpreter's own rows): no compare run
                continue
            print(f"  {label:<46} {best[key] * 1000:6.1f}ms {median[key] * 1000:6.1f}ms "
                  f"{cpu[key] * 1000:6.1f}ms   {best[key] / best[against]:5.2f}x "
                  f"({median[key] / median[against]:.2f}x)")
        before = best["call-1k (compare)"] / best["call-1 (compare)"]
        print(f"  call on {args.tools * args.versions} versions / call on 1 there: "
              f"{before:.2f}x")
    big = best["call-1k"] / best["call-1"]
    print(f"  call on {args.tools * args.versions} versions / call on 1: {big:.2f}x "
          f"({median['call-1k'] / median['call-1']:.2f}x)  target 1.2x: "
          f"{'OK' if big <= 1.2 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
