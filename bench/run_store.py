"""Keeping a script run: `RunStore.save` and `RunStore.load` with the step check
(dyntools/codemode/progress.py), against the same store with the step check switched off,
measured alternately in the same run.

    save finished   a finished record (atomic, no fsync) and its step (no fsync)
    save waiting    a waiting record (fsync of the file and the folder) and its step (fsync)
    load            a record read back: seal, parse, the step compared

Printed: the median microseconds of each, with and without the step, and their ratio.

    .venv/bin/python bench/run_store.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dyntools.codemode import progress as progress_module
from dyntools.codemode.record import OK, WAITING, RunRecord
from dyntools.codemode.store import RunStore


class _NoProgress(progress_module.RunProgress):
    """The baseline: remembers nothing, finds nothing stale."""

    def accepted(self, run_id: str) -> progress_module.Step | None:
        return None

    def advance(self, run_id: str, seq: int, status: str, *, sync: bool) -> None:
        return None


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["DYNTOOLS_TRUST_STATE"] = str(Path(scratch) / "state")
        store = RunStore(Path(scratch) / "registry" / ".runs")
        store.folder.parent.mkdir()
        record = RunRecord.new("result = 1\n", "0" * 64, "0" * 64, {"n": 1}, {}, "registry")
        real = RunStore.progress
        times: dict[tuple[str, bool], list[float]] = {}
        for _ in range(rounds):
            for checked in (True, False):
                RunStore.progress = real if checked else property(  # type: ignore[method-assign]
                    lambda self: _NoProgress(self.registry_root))
                record.status = OK
                times.setdefault(("save finished", checked), []).append(
                    _timed(lambda: store.save(record)))
                record.status = WAITING
                times.setdefault(("save waiting", checked), []).append(
                    _timed(lambda: store.save(record)))
                times.setdefault(("load", checked), []).append(
                    _timed(lambda: store.load(record.run_id)))
        RunStore.progress = real  # type: ignore[method-assign]
    print(f"{'':16}{'with step':>12}{'without':>12}{'ratio':>8}   (median us, {rounds} rounds)")
    for what in ("save finished", "save waiting", "load"):
        with_step = statistics.median(times[(what, True)])
        without = statistics.median(times[(what, False)])
        print(f"{what:16}{with_step:12.0f}{without:12.0f}{with_step / without:8.2f}")


if __name__ == "__main__":
    main()
