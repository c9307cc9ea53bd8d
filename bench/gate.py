"""How long the static gate takes, next to `ast.parse` of the same files in the same run.

Target (DESIGN.md §9, issue 15): the whole gate, every rule on, at most 2x `ast.parse` on
realistic files, in-process and through `dyntools check` on many files; `dyntools check` of
one file within 8x `python -I -S -c pass` (issue 29: click reads every command line).

The corpus: ~2,000 generated realistic tools (bench/gate_corpus.py: several EXAMPLES each,
non-ASCII strings and comments in about half, typical imports, 40-300 lines), the benign
corpus tests/gate/cases/accept and the offline generator's templates. Each file is gated
once, as a long-running host or `dyntools check` sees it.

- in-process: per file, `ast.parse(data)` and `check_source(data)` back to back (which one
  goes first alternates), summed over the corpus; the ratio of the sums, and the median and
  p90 of the per-file ratios.
- `dyntools check`: one process over the whole corpus, against the in-process parse sum (the
  strict figure: start-up, reading and printing included) and against one process that reads
  and parses the same files (`python -c ...`, start-up included on both sides). Every tree's
  check and the parse process run in the same rounds, in rotating order, and each ratio is
  taken within its round: on a shared machine, load moves between minutes, not within one.
- start-up: `dyntools check ONE_FILE` and `dyntools --version` against `python -I -S -c pass`,
  and what importing the gate and jsonschema_rs costs, interleaved.

`--baseline DIR` runs the same measurements, in the same run and on the same corpus, with the
dyntools found in DIR (e.g. `git archive <commit> | tar -x -C DIR`), and prints both.

    .venv/bin/python bench/gate.py [--files N] [--baseline DIR] [--profile] [--quick]
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import gc
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate_corpus import realistic_corpus

REPO = Path(__file__).resolve().parents[1]
TARGET = 2.0
STARTUP_TARGET = 8.0


def corpus_files(count: int) -> list[tuple[str, bytes]]:
    files = [(name, source.encode("utf-8")) for name, source in realistic_corpus(count)]
    for folder in (REPO / "tests" / "gate" / "cases" / "accept",
                   REPO / "dyntools" / "generators" / "templates"):
        files += [(f"{folder.name}_{path.name}", path.read_bytes())
                  for path in sorted(folder.glob("*.py"))]
    return files


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# ----------------------------------------------------------------------------- child side
# Runs in a fresh interpreter whose `dyntools` is the tree under test (PYTHONPATH).


def child_in_process(directory: Path) -> dict[str, Any]:
    from dyntools.gate import check_source, load_policy

    policy = load_policy()
    paths = sorted(directory.glob("*.py"))
    datas = [path.read_bytes() for path in paths]
    refused = [p.name for p, d in zip(paths, datas, strict=True)
               if not check_source(d, policy).accepted]
    for data in datas[:50]:  # warm the interpreter's own caches, not the schema cache
        ast.parse(data)
    parse_us, gate_us = _interleaved(datas, policy, collect=False)
    # As a process runs it: the collector on (it costs ast.parse's many young objects more
    # than the gate's few), every file once more.
    gc_parse, gc_gate = _interleaved(datas, policy, collect=True)
    ratios = [g / p for g, p in zip(gate_us, parse_us, strict=True)]
    return {
        "files": len(datas),
        "refused": refused,
        "parse_s": sum(parse_us) / 1e6,
        "gate_s": sum(gate_us) / 1e6,
        "ratio": sum(gate_us) / sum(parse_us),
        "gc_ratio": sum(gc_gate) / sum(gc_parse),
        "median_ratio": statistics.median(ratios),
        "p90_ratio": percentile(ratios, 0.9),
        "non_ascii_ratio": _subset_ratio(datas, gate_us, parse_us, ascii_only=False),
        "ascii_ratio": _subset_ratio(datas, gate_us, parse_us, ascii_only=True),
    }


def _interleaved(datas: list[bytes], policy: Any, collect: bool
                 ) -> tuple[list[float], list[float]]:
    """Per file, ast.parse and the gate back to back, which one first alternating; with the
    collector off (a collection landing in one contender's sample is noise, not its cost;
    one every 100 files) or on."""
    from dyntools.gate import check_source

    parse_us: list[float] = []
    gate_us: list[float] = []
    clock = time.perf_counter_ns
    if not collect:
        gc.disable()
    try:
        for index, data in enumerate(datas):
            if index % 2:
                start = clock()
                ast.parse(data)
                middle = clock()
                check_source(data, policy)
                end = clock()
                parse_us.append((middle - start) / 1000)
                gate_us.append((end - middle) / 1000)
            else:
                start = clock()
                check_source(data, policy)
                middle = clock()
                ast.parse(data)
                end = clock()
                gate_us.append((middle - start) / 1000)
                parse_us.append((end - middle) / 1000)
            if index % 100 == 99 and not collect:
                gc.collect()
    finally:
        gc.enable()
    return parse_us, gate_us


def _subset_ratio(datas: list[bytes], gate_us: list[float], parse_us: list[float],
                  ascii_only: bool) -> float:
    gate = sum(g for d, g in zip(datas, gate_us, strict=True) if d.isascii() == ascii_only)
    parse = sum(p for d, p in zip(datas, parse_us, strict=True) if d.isascii() == ascii_only)
    return gate / parse if parse else 0.0


def child_profile(directory: Path, limit: int) -> None:
    from dyntools.gate import check_source, load_policy

    policy = load_policy()
    datas = [path.read_bytes() for path in sorted(directory.glob("*.py"))]
    profiler = cProfile.Profile()
    profiler.enable()
    for data in datas:
        check_source(data, policy)
    profiler.disable()
    print(f"cProfile of the gate over {len(datas)} files, by own time:")
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("tottime").print_stats(limit)
    stats.sort_stats("cumulative").print_stats(limit)


# ----------------------------------------------------------------------------- parent side


def _env(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    return env


def run_child(tree: Path, directory: Path, mode: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--corpus-dir", str(directory)],
        capture_output=True, text=True, env=_env(tree), cwd=tree, check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"child {mode} in {tree} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env=env, cwd=cwd, check=False)
    return time.perf_counter() - start, done.returncode


PARSE_PROCESS = ("import ast, sys\n"
                 "for name in sys.argv[1:]:\n"
                 "    with open(name, 'rb') as handle:\n"
                 "        ast.parse(handle.read())\n")


def measure_rounds(tree: Path, directory: Path, rounds: int) -> dict[str, Any]:
    """The in-process child, `rounds` times (each ratio is taken within its process: the
    machine is shared, and load changes between rounds, not within one), then the median."""
    per_round = [run_child(tree, directory, "in-process") for _ in range(rounds)]
    result = dict(per_round[-1])
    for key in ("ratio", "gc_ratio", "median_ratio", "p90_ratio", "ascii_ratio", "non_ascii_ratio",
                "parse_s", "gate_s"):
        result[key] = statistics.median(r[key] for r in per_round)
    result["rounds"] = rounds
    return result


def measure_cli(trees: dict[str, Path], directory: Path, rounds: int, parse_sums: dict[str, float]
                ) -> dict[str, dict[str, float]]:
    """`dyntools check` over the corpus, one process per tree, and one process that reads
    and parses the same files, all in the same rounds in rotating order (a tree's figure is
    taken beside the parse process of its own round, and every tree sees the same moments
    of the machine), then the median of the per-round ratios. `parse_sums`: each tree's
    in-process ast.parse sum, for the strict figure."""
    files = [str(p) for p in sorted(directory.glob("*.py"))]
    parse = [sys.executable, "-c", PARSE_PROCESS, *files]
    steps: list[tuple[str, list[str], dict[str, str]]] = [("parse", parse, _env(REPO))]
    steps += [(label, [sys.executable, "-m", "dyntools", "check", *files], _env(tree))
              for label, tree in trees.items()]
    seconds: dict[str, list[float]] = {name: [] for name, _, _ in steps}
    for round_ in range(rounds):
        shift = round_ % len(steps)
        for name, command, env in steps[shift:] + steps[:shift]:
            took, code = timed(command, env, REPO)
            # exit 1 is a refusal: this tree must accept the corpus, a baseline may not
            allowed = (0,) if name == "parse" or trees[name] == REPO else (0, 1)
            if code not in allowed:
                raise SystemExit(f"{name}: the process over the corpus exited {code}")
            seconds[name].append(took)
    results = {}
    for label in trees:
        results[label] = {
            "cli_process_s": statistics.median(seconds[label]),
            "parse_process_s": statistics.median(seconds["parse"]),
            "cli_fair": statistics.median(
                c / p for c, p in zip(seconds[label], seconds["parse"], strict=True)),
            "cli_strict": statistics.median(seconds[label]) / parse_sums[label],
            "cli_rounds": rounds,
        }
    return results


# The console script's entry point (`script`; older trees have `run`, or only the click group).
CONSOLE_SCRIPT = ("import sys; import dyntools.cli as cli; sys.argv[0] = 'dyntools'; "
                  "sys.exit((getattr(cli, 'script', None) or getattr(cli, 'run', None) "
                  "or cli.main)())")


def startup(tree: Path, one_file: Path, rounds: int, cache: Path) -> dict[str, float]:
    """Start-up, interleaved. This machine kind sets PYTHONDONTWRITEBYTECODE, so dyntools'
    own modules are compiled from source by every process; the "(bytecode cached)" lines
    give each tree a cache of its own (PYTHONPYCACHEPREFIX), as an installed wheel has."""
    env = _env(tree)
    cached_env = dict(env)
    cached_env.pop("PYTHONDONTWRITEBYTECODE", None)
    cached_env["PYTHONPYCACHEPREFIX"] = str(cache)
    py = sys.executable
    commands = {
        "python -I -S -c pass": [py, "-I", "-S", "-c", "pass"],
        "python -c pass": [py, "-c", "pass"],
        # what the `dyntools` console script runs, from this tree (PYTHONPATH)
        "dyntools check ONE_FILE": [py, "-c", CONSOLE_SCRIPT, "check", str(one_file)],
        "python -m dyntools check ONE_FILE": [py, "-m", "dyntools", "check", str(one_file)],
        "dyntools --version": [py, "-c", CONSOLE_SCRIPT, "--version"],
        "import dyntools.gate": [py, "-c", "import dyntools.gate"],
        "gate one file (no CLI)": [py, "-c", "import sys\nfrom dyntools.gate import check_file\n"
                                   "sys.exit(not check_file(sys.argv[1]).accepted)",
                                   str(one_file)],
        "import jsonschema_rs": [py, "-c", "import jsonschema_rs"],
    }
    cached = ("dyntools check ONE_FILE", "import dyntools.gate")
    for name in cached:
        commands[f"{name} (bytecode cached)"] = commands[name]
        timed(commands[name], cached_env, tree)  # writes the cache
    samples: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    for round_ in range(rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            seconds, _ = timed(commands[name], cached_env if "cached" in name else env, tree)
            samples[name].append(seconds)
    return {name: statistics.median(values) for name, values in samples.items()}


def measure_tree(tree: Path, directory: Path, one_file: Path, args: argparse.Namespace
                 ) -> dict[str, Any]:
    result = measure_rounds(tree, directory, args.rounds)
    with tempfile.TemporaryDirectory(prefix="dyntools-gate-pyc-") as cache:
        result["startup"] = startup(tree, one_file, args.startup_rounds, Path(cache))
    return result


def show(label: str, result: dict[str, Any]) -> None:
    verdict = "within" if result["ratio"] <= TARGET else "OVER"
    print(f"\n{label}")
    if result["refused"]:
        print(f"  refused {len(result['refused'])} file(s): {result['refused'][:5]}")
    print(f"  (in-process: median of {result['rounds']} rounds, each ratio within its process; "
          f"dyntools check: median of {result['cli_rounds']} rounds shared by every tree)")
    print(f"  in-process, {result['files']} files: gate {result['gate_s']:.3f} s, ast.parse "
          f"{result['parse_s']:.3f} s -> {result['ratio']:.2f}x ({verdict} {TARGET:.1f}x); "
          f"per file median {result['median_ratio']:.2f}x, p90 {result['p90_ratio']:.2f}x; "
          f"ASCII-only files {result['ascii_ratio']:.2f}x, "
          f"non-ASCII {result['non_ascii_ratio']:.2f}x (collector off); with the collector on, "
          f"as a process runs: {result['gc_ratio']:.2f}x")
    strict, fair = result["cli_strict"], result["cli_fair"]
    print(f"  dyntools check, one process over {result['files']} files: "
          f"{result['cli_process_s']:.3f} s -> {fair:.2f}x a process that reads and parses "
          f"them ({result['parse_process_s']:.3f} s; {'within' if fair <= TARGET else 'OVER'} "
          f"{TARGET:.1f}x); {strict:.2f}x the in-process ast.parse sum (start-up, reading and "
          f"printing against none of them; {'within' if strict <= TARGET else 'OVER'})")
    times = result["startup"]
    floor = times["python -I -S -c pass"]
    print(f"  start-up (median ms, x python -I -S -c pass = {floor * 1000:.1f} ms):")
    for name, seconds in times.items():
        if name == "python -I -S -c pass":
            continue
        mark = ""
        if name.startswith("dyntools check ONE_FILE"):
            mark = "  within" if seconds / floor <= STARTUP_TARGET else "  OVER"
            mark += f" {STARTUP_TARGET:.0f}x"
        print(f"    {name:26} {seconds * 1000:8.1f} ms {seconds / floor:6.2f}x{mark}")


# Rejected files under the size limit that are expensive for the gate rather than the parser:
# many findings on one long non-ASCII line (a column per finding), and non-ASCII text
# anywhere (the identifier scan).
ADVERSARIAL = {
    "45k non-ASCII names, one line": "x = [" + ", ".join(["\u00e9"] * 45000) + "]\n",
    "30k p._a after a non-ASCII char": "x = ['\u00e9', " + ", ".join(["p._a"] * 30000) + "]\n",
    "12k lines with a non-ASCII comment": "".join(
        f"x{i} = p._a  # \u00e9\n" for i in range(12000)
    ),
    "12k lines of non-ASCII strings": "".join(f"x{i} = '\u00e9\u6771'\n" for i in range(12000)),
}


def child_adversarial() -> dict[str, Any]:
    from dyntools.gate import check_source, load_policy

    policy = load_policy()
    out = {}
    for label, source in ADVERSARIAL.items():
        data = source.encode("utf-8")
        parse: list[float] = []
        gate: list[float] = []
        for _ in range(3):
            start = time.perf_counter()
            ast.parse(data)
            parse.append(time.perf_counter() - start)
            start = time.perf_counter()
            check_source(data, policy)
            gate.append(time.perf_counter() - start)
        out[label] = [len(data), statistics.median(parse), statistics.median(gate)]
    return out


def show_adversarial(label: str, result: dict[str, Any]) -> None:
    print(f"\nadversarial inputs, {label} (rejected; median of 3):")
    for name, (size, parse, gate) in result.items():
        print(f"  {name:36} {size:7} bytes  parse {parse * 1000:8.1f} ms  "
              f"gate {gate * 1000:9.1f} ms  {gate / parse:6.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000, help="generated files (default 2000)")
    parser.add_argument("--baseline", type=Path, help="another dyntools tree to measure too")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the gate")
    parser.add_argument("--quick", action="store_true", help="fewer files and rounds")
    parser.add_argument("--rounds", type=int, default=0, help="in-process rounds (default 3)")
    parser.add_argument("--cli-rounds", type=int, default=0,
                        help="rounds of dyntools check over the corpus (default 7)")
    parser.add_argument("--no-adversarial", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--corpus-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "in-process":
        print(json.dumps(child_in_process(args.corpus_dir)))
        return
    if args.child == "adversarial":
        print(json.dumps(child_adversarial()))
        return
    if args.child == "profile":
        child_profile(args.corpus_dir, 30)
        return
    if args.quick:
        args.files = min(args.files, 300)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.startup_rounds = 5 if args.quick else 21
    args.cli_rounds = args.cli_rounds or (1 if args.quick else 7)
    files = corpus_files(args.files)
    load = os.getloadavg()
    print(f"Python {sys.version.split()[0]}; load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f} on {os.cpu_count()} CPUs; target: gate <= {TARGET:.1f}x ast.parse")
    non_ascii = sum(not data.isascii() for _, data in files)
    lines = sorted(data.count(b"\n") for _, data in files)
    print(f"corpus: {len(files)} files ({args.files} generated, the accept corpus and the "
          f"templates), {lines[0]}-{lines[-1]} lines, median {lines[len(lines) // 2]}, "
          f"{non_ascii} with non-ASCII text")
    trees = [("this tree", REPO)]
    if args.baseline is not None:
        trees.insert(0, (f"baseline {args.baseline}", args.baseline.resolve()))
    with tempfile.TemporaryDirectory(prefix="dyntools-gate-bench-") as tmp:
        directory = Path(tmp)
        for name, data in files:
            (directory / name).write_bytes(data)
        one_file = directory / files[len(files) // 2][0]
        if args.profile:
            subprocess.run([sys.executable, __file__, "--child", "profile", "--corpus-dir",
                            str(directory)], env=_env(REPO), cwd=REPO, check=True)
        results = {label: measure_tree(tree, directory, one_file, args) for label, tree in trees}
        # A baseline may refuse what it does not know yet (a template using `host`): measured
        # all the same, and its refusals are listed.
        cli = measure_cli(dict(trees), directory, args.cli_rounds,
                          {label: result["parse_s"] for label, result in results.items()})
        for label, result in results.items():
            result.update(cli[label])
        for label, result in results.items():
            show(label, result)
        if not args.no_adversarial:
            for label, tree in trees:
                show_adversarial(label, run_child(tree, directory, "adversarial"))
    load = os.getloadavg()
    print(f"\nload average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
