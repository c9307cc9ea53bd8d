"""The reachability walk (issue 9): no allowed member, called with crafted arguments, leaves
a forbidden object where the tool reads without a guard, builds one from an unguarded call,
or compiles a string. See reachability_walk.py; `make fuzz` runs a longer walk."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

WALK = Path(__file__).with_name("reachability_walk.py")
ROOT = Path(__file__).resolve().parents[2]


def _run(code: list[str], timeout: float) -> dict:
    done = subprocess.run([sys.executable, *code], capture_output=True, text=True,
                          timeout=timeout, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_no_allowed_member_leaves_builds_or_compiles_a_forbidden_object():
    report = _run([str(WALK), "--calls", "40000", "--depth", "1"], timeout=600)
    assert report["calls"] >= 30000, report["calls"]  # the walk really walked
    assert report["findings"] == []


def test_the_walk_finds_a_planted_leak():
    """A member that leaves a code object in the list it is given is found."""
    code = textwrap.dedent('''
        import io, json, sys
        sys.path.insert(0, "tests/sandbox")
        from reachability_walk import Walk

        walk = Walk(5000, 0)
        def planted(x=None, *args, **kwargs):
            if isinstance(x, list):
                x.append(planted.__code__)
            return 0
        walk.guards.views.clear()
        walk.builtins = {"planted": planted}
        walk.guards.allow(planted)
        real, sys.stdout = sys.stdout, io.StringIO()
        report = walk.run()
        sys.stdout = real
        print(json.dumps(report))
    ''')
    report = _run(["-c", code], timeout=120)
    kinds = {(f["kind"], f["where"].split("(")[0]) for f in report["findings"]}
    assert ("left_in_argument", "planted") in kinds, report
