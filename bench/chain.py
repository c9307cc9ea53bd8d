"""What decision chains cost what serves a tool, against the same lookup without trusted keys,
measured in the same run.

    baseline   lazy open + current(NAME), no trusted keys (a keyless `call`'s registry work)
    signed     the same with trusted keys and a chain of N records: the version's signature,
               every record's signature and link, the head against this consumer's accepted
               head (unchanged: read, nothing written)
    advance    the same when the head is new to this consumer: the accepted-heads file is
               locked, rewritten and fsynced (once per new head, per consumer)
    decide     one signed `activate` (writer lock, chain checked, record signed, manifest
               committed) against one unsigned activate without trusted keys

    .venv/bin/python bench/chain.py [--lengths 1,10,100] [--rounds 30]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dyntools.base.log import configure_logging
from dyntools.gate.policy import load_policy
from dyntools.registry import Registry
from dyntools.registry.signing import generate_keypair, load_signing_key, load_trusted_keys

TOOL = '''"""Answers."""

NAME = "echo_tool"
DESCRIPTION = "Answers with a fixed value."
PARAMS = {"type": "object", "properties": {}}


def run(params):
    return {"answer": "@V@"}
'''


def _median_ms(work: Callable[[], object], rounds: int) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="1,10,100")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    configure_logging("error")
    policy = load_policy()
    work = Path(tempfile.mkdtemp(prefix="dyntools-chain-bench-"))
    os.environ["DYNTOOLS_TRUST_STATE"] = str(work / "state")
    try:
        private, public, _ = generate_keypair(work / "alice.key")
        signer, trusted = load_signing_key(private), load_trusted_keys(public)
        print(f"{args.rounds} rounds; medians (best in parentheses); load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for length in (int(n) for n in args.lengths.split(",")):
            root = work / f"reg-{length}"
            registry = Registry.open(root, policy)
            registry.add_version("echo_tool", TOOL.replace("@V@", "1"), {}, signer=signer,
                                 decision={"action": "ensure", "by": "bench"})
            registry.add_version("echo_tool", TOOL.replace("@V@", "2"), {}, signer=signer,
                                 decision={"action": "ensure", "by": "bench"})
            for i in range(length - 2):
                registry.activate("echo_tool", 1 + i % 2, signer=signer)

            def lookup(keys: frozenset[str] | None = None, at: Path = root) -> None:
                opened = Registry.open(at, policy, lazy=True, trusted_keys=keys)
                assert opened.current("echo_tool") is not None

            base = _median_ms(lookup, args.rounds)
            lookup(trusted)  # accept the head once
            signed = _median_ms(lambda: lookup(trusted), args.rounds)

            def advance() -> None:
                shutil.rmtree(work / "state", ignore_errors=True)
                lookup(trusted)

            fresh = _median_ms(advance, max(5, args.rounds // 3))
            print(f"chain of {max(length, 2):>4} record(s): baseline {base[0]:.2f} ms "
                  f"({base[1]:.2f}); "
                  f"signed {signed[0]:.2f} ms ({signed[1]:.2f}) = {signed[0] / base[0]:.2f}x; "
                  f"advance {fresh[0]:.2f} ms ({fresh[1]:.2f}) = {fresh[0] / base[0]:.2f}x")
        plain_root = work / "plain"
        plain = Registry.open(plain_root, policy)
        plain.add_version("echo_tool", TOOL.replace("@V@", "1"), {})
        plain.add_version("echo_tool", TOOL.replace("@V@", "2"), {})
        chained = Registry.open(work / "reg-1", policy, trusted_keys=trusted)
        flip = iter(range(10**6))
        unsigned = _median_ms(lambda: plain.activate("echo_tool", 1 + next(flip) % 2),
                              args.rounds)
        signed_decision = _median_ms(
            lambda: chained.activate("echo_tool", 1 + next(flip) % 2, signer=signer),
            args.rounds)
        print(f"activate: unsigned without trusted keys {unsigned[0]:.2f} ms "
              f"({unsigned[1]:.2f}); signed and chained {signed_decision[0]:.2f} ms "
              f"({signed_decision[1]:.2f}) = {signed_decision[0] / unsigned[0]:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
