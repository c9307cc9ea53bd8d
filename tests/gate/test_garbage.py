"""The gate leaves no reference cycles behind: everything a check makes is freed by reference
counting as the report is returned, so a host that gates many files gives its collector no
work (a self-calling closure in the PARAMS cost walk left one cycle per schema), and
`dyntools check` may collect rarely (dyntools/cli/check_cmd.py).

Counted in a fresh interpreter: another test's threads could make garbage of their own
while the collector is off here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import gc, json, sys
from pathlib import Path
from dyntools.gate import check_source, load_policy

repo = Path(sys.argv[1])
files = sorted((repo / "tests" / "gate" / "cases" / "accept").glob("*.py"))
files += sorted((repo / "dyntools" / "generators" / "templates").glob("*.py"))
refused = [
    "NAME = 'x'\nDESCRIPTION = 'd'\nPARAMS = {'type': 'object'}\nimport os\n"
    "def run(params):\n    return os.system('id')\n",
    "def run(params):\n    return params.__class__\n",
    "x = (\n",
    "PARAMS = {'type': 'object', 'properties': {'a': {'$ref': 'http://x/y'}}}\n",
]
policy = load_policy()
check_source(files[0].read_bytes(), policy)  # load the engine and the caches first
gc.collect()
gc.disable()
gc.set_debug(gc.DEBUG_SAVEALL)
accepted = sum(check_source(path.read_bytes(), policy).accepted for path in files)
rejected = sum(not check_source(source, policy).accepted for source in refused)
found = gc.collect()
kinds = sorted({type(o).__qualname__ for o in gc.garbage})
print(json.dumps({"files": len(files), "accepted": accepted, "rejected": rejected,
                  "garbage": found, "kinds": kinds}))
"""


def test_checking_files_leaves_no_cycles() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(REPO)], capture_output=True,
                          text=True, cwd=REPO, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["files"] > 20
    assert result["accepted"] > 20
    assert result["rejected"] == 4
    assert result["garbage"] == 0, result["kinds"]
