"""The gate-accepted attacks (tests/gate/cases/contained/): what the gate lets through, the
sandbox contains, each as its header's `# verdict:` says.

Every file is a complete tool taking `{"secret": ...}`. It runs twice on one warm pool of one
worker: first for caller 1 with a secret, then for caller 2 with another.

- `spent`: caller 2 never sees anything of caller 1's call (`seen` is empty, the secret is
  nowhere in the reply) and the worker caller 1 used was replaced;
- `cleared`: caller 2 never sees anything of caller 1's call, on the same warm worker: what
  caller 1 left is something the worker empties after each call (a tool's `lru_cache`, a
  library cache) or that ran inside caller 1's own call (what a finalizer printed);
- `runtime_error` / `sandbox_violation`: caller 1's call ends with that reason.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dyntools.errors import SandboxError
from dyntools.gate import check_source
from dyntools.gate.policy import Policy
from dyntools.sandbox import SandboxLimits, WorkerPool

CONTAINED = sorted((Path(__file__).resolve().parents[1] / "gate" / "cases" / "contained")
                   .glob("*.py"))
VERDICTS = frozenset({"spent", "cleared", "runtime_error", "sandbox_violation"})
SECRET = "alice-secret"


def verdict_of(source: str) -> str:
    found = re.search(r"^# verdict: (\S+)$", source, re.MULTILINE)
    assert found is not None, "no `# verdict:` header"
    return found.group(1)


def test_the_corpus_is_there() -> None:
    assert len(CONTAINED) >= 10
    for path in CONTAINED:
        assert verdict_of(path.read_text(encoding="utf-8")) in VERDICTS, path.name


@pytest.mark.parametrize("path", CONTAINED, ids=[p.stem for p in CONTAINED])
def test_a_gate_accepted_attack_is_contained(path: Path, policy: Policy) -> None:
    source = path.read_text(encoding="utf-8")
    assert check_source(source, policy, path=str(path)).accepted, "the gate refuses it now"
    verdict = verdict_of(source)
    with WorkerPool(path, module_name=f"{path.stem}_v1", policy=policy, size=1,
                    limits=SandboxLimits(timeout_s=20.0), source=source) as pool:
        if verdict not in ("spent", "cleared"):
            with pytest.raises(SandboxError) as caught:
                pool.call({"secret": SECRET})
            assert caught.value.reason == verdict, caught.value
            return
        first = pool.call({"secret": SECRET})
        second, printed = pool.call_outcome({"secret": "bob"})
        assert SECRET not in json.dumps(second) + printed, (first, second, printed)
        assert second["seen"] == [], (first, second)
        if verdict == "spent":
            assert pool.stats["replaced"] >= 1, pool.stats
        else:
            assert pool.stats["replaced"] == 0 and pool.stats["started"] == 1, pool.stats
