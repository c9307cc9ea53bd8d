"""The gate's values (findings, reports) are immutable, compare, hash, order and pickle."""

from __future__ import annotations

import pickle

import pytest

from dyntools.gate.capabilities import Capabilities
from dyntools.gate.findings import Finding, GateReport


def test_gate_values_stay_immutable_comparable_and_picklable() -> None:
    finding = Finding(3, 1, "DT401", "eval")
    report = GateReport("a.py", "00", (finding,), "pd", ("x = 1",), "a", "[]", Capabilities())
    same = GateReport("a.py", "00", (finding,), "pd")  # source_lines and metadata not compared
    assert report == same and hash(report) == hash(same)
    assert report != same.replace(findings=())
    assert pickle.loads(pickle.dumps(report)) == report
    assert pickle.loads(pickle.dumps(report)).source_lines == ("x = 1",)
    assert report.replace(path="b.py").declared_capabilities == Capabilities()
    for value, field in ((report, "path"), (finding, "line")):
        with pytest.raises(AttributeError):
            setattr(value, field, None)
    with pytest.raises(TypeError):
        report.replace(colour="red")
    assert sorted([Finding(2, 5, "DT1", "b"), Finding(2, 1, "DT9", "a")])[0].col == 1
    assert not Capabilities() and "source_lines" not in repr(report)
