"""The gate leaves no reference cycles behind: everything a check makes is freed by reference
counting as the report is returned, so a host that gates many files gives its collector no
work (a self-calling closure in the PARAMS cost walk left one cycle per schema)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from dyntools.gate import check_source, load_policy

REPO = Path(__file__).resolve().parents[2]
FILES = sorted((REPO / "tests" / "gate" / "cases" / "accept").glob("*.py")) + sorted(
    (REPO / "dyntools" / "generators" / "templates").glob("*.py"))
REFUSED = [
    "NAME = 'x'\nDESCRIPTION = 'd'\nPARAMS = {'type': 'object'}\nimport os\n"
    "def run(params):\n    return os.system('id')\n",
    "def run(params):\n    return params.__class__\n",
    "x = (\n",
]


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.usefixtures("collector_off")
def test_checking_files_leaves_no_cycles() -> None:
    policy = load_policy()
    assert len(FILES) > 20
    accepted = 0
    for path in FILES:
        accepted += check_source(path.read_bytes(), policy).accepted
    for source in REFUSED:
        assert not check_source(source, policy).accepted
    assert accepted > 20
    assert gc.collect() == 0, sorted({type(o).__qualname__ for o in gc.garbage})
