"""The per-call audit event: warm `Dyntools.call` with the audit file against without it.

    .venv/bin/python bench/audit.py [--calls N] [--blocks N] [--dir PATH]

One registry, one warm tool (`slugify_text`); blocks of calls alternate between
`configure_logging("warning")` (no audit file: the call's info event is filtered out) and
`configure_logging("warning", audit_path=...)` (every call writes one event to the file), so
other load on the machine hits both alike. Target (issue 15): with the file within 1.3x of
without, medians of the same run. The file's line count is checked against the calls made.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from dyntools.base.log import configure_logging, flush_logs
from dyntools.pipeline.dyntools import Dyntools

TOOL = "slugify_text"
PARAMS = {"text": "Hello World, from the bench"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500, help="calls per block")
    parser.add_argument("--blocks", type=int, default=20, help="blocks of each kind")
    parser.add_argument("--dir", default=None, help="where the registry goes")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="dyntools-bench-audit-", dir=args.dir))
    audit = base / "audit.log"
    samples: dict[str, list[float]] = {"without": [], "with": []}
    clock = time.perf_counter
    try:
        configure_logging("warning")
        with Dyntools(base / "reg") as dt:
            dt.ensure(TOOL)
            for _ in range(500):
                dt.call(TOOL, PARAMS)
            for _ in range(args.blocks):
                for kind in ("without", "with"):
                    if kind == "with":
                        configure_logging("warning", audit_path=audit)
                    else:
                        configure_logging("warning")
                    out = samples[kind]
                    for _ in range(args.calls):
                        started = clock()
                        dt.call(TOOL, PARAMS)
                        out.append(clock() - started)
        flush_logs()
        configure_logging("warning")  # closes the audit file
        lines = sum(1 for line in audit.read_text().splitlines()
                    if '"station": "execute"' in line)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    without = statistics.median(samples["without"])
    with_file = statistics.median(samples["with"])
    ratio = with_file / without
    print(f"Dyntools.call, warm, no audit file       {without * 1e6:8.1f} µs median")
    print(f"Dyntools.call, warm, with the audit file {with_file * 1e6:8.1f} µs median   "
          f"{ratio:.2f}x   target <= 1.3x: {'met' if ratio <= 1.3 else 'MISSED'}")
    expected = args.blocks * args.calls
    print(f"audit events written: {lines} of {expected} calls"
          f"{'' if lines == expected else '   LOST EVENTS'}")


if __name__ == "__main__":
    main()
