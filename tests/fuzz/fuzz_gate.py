"""Coverage-guided fuzzing of the static gate with atheris (libFuzzer for Python).

`ast.parse` is C code that atheris cannot see, so the gate's own modules are imported inside
`atheris.instrument_imports`: the coverage signal comes from the hygiene scan, the visitor, the
contract checks and the renderers, which is where the gate's bugs would be.

The gate promises never to raise (a rule that crashes becomes a DT902 finding), so a DT902 is
treated as a crash here too: it is a bug that happens to fail closed. Run it with `make fuzz`
(SECONDS_TO_FUZZ=600 for ten minutes) or directly; see tests/fuzz/README.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["dyntools"]):
    from dyntools.gate import check_source, load_policy
    from dyntools.gate.findings import RULES, GateReport, render_text, to_json, to_sarif

HERE = Path(__file__).resolve().parent
SEEDS = HERE / "corpus"
WORK = HERE / "work"  # git-ignored: where libFuzzer writes the inputs it finds interesting
ARTIFACTS = HERE / "artifacts"  # git-ignored: crash-*, timeout-*, oom-* inputs
POLICY = load_policy()


class GateBug(AssertionError):
    """The gate broke one of its promises on this input."""


def check_report(report: GateReport) -> None:
    """The promises every report keeps, whatever the input."""
    if not isinstance(report, GateReport):
        raise GateBug(f"check_source returned {type(report).__name__}")
    for finding in report.findings:
        if finding.code not in RULES:
            raise GateBug(f"unknown code {finding.code!r}: {finding}")
        if finding.line < 1 or finding.col < 1:
            raise GateBug(f"position not 1-based: {finding}")
        if finding.code == "DT902":
            raise GateBug(f"a gate rule crashed (fails closed, still a bug): {finding.message}")
    # The renderings must cope with whatever the findings hold (surrogates, odd columns).
    render_text(report)
    json.dumps(to_json([report]))
    json.dumps(to_sarif([report], "fuzz"))


def test_one_input(data: bytes) -> None:
    check_report(check_source(data, POLICY, path="fuzz.py"))


def default_arguments(argv: list[str]) -> list[str]:
    """Fill in what `make fuzz` leaves out: a writable work corpus in front of the read-only
    seeds, a token dictionary, an artifact folder and a per-input hang detector."""
    flags = [a for a in argv[1:] if a.startswith("-")]
    dirs = [a for a in argv[1:] if not a.startswith("-")]
    if not dirs or Path(dirs[0]).resolve() == SEEDS:
        WORK.mkdir(exist_ok=True)
        dirs = [str(WORK), *(dirs or [str(SEEDS)])]
    defaults = {
        "-dict=": f"-dict={HERE / 'python.dict'}",
        "-artifact_prefix=": f"-artifact_prefix={ARTIFACTS}/",
        "-timeout=": "-timeout=20",
        "-max_len=": "-max_len=8192",
    }
    for prefix, value in defaults.items():
        if not any(flag.startswith(prefix) for flag in flags):
            flags.append(value)
    ARTIFACTS.mkdir(exist_ok=True)
    return [argv[0], *flags, *dirs]


def main() -> None:
    atheris.Setup(default_arguments(sys.argv), test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
