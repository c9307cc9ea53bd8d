"""What the host accepts from a worker: only text a UTF-8 writer can pass on.

JSON escapes can spell a lone surrogate ("\\ud800"); the worker's ASCII JSON carries it and
the host's json.loads rebuilds it, but no UTF-8 writer accepts it: one such string in a result
made the MCP server's stdout writer raise and end the whole server (red team R1).
"""

from __future__ import annotations

import pytest

from dyntools.errors import BadResult, ToolRuntimeError
from dyntools.sandbox import WorkerPool

TOOL = '''
def run(params):
    kind = params["kind"]
    if kind == "result":
        return {"text": "\\ud800"}
    if kind == "key":
        return {"\\udfff": 1}
    if kind == "pair":
        return {"text": "\\ud83d\\ude00"}
    if kind == "print":
        print("out \\ud800")
        return {"ok": True}
    raise ValueError("bad \\udc80 input")
'''


def test_lone_surrogates_never_reach_the_host_callers(tool, policy, limits):
    with WorkerPool(tool(TOOL), module_name="surrogate_v1", policy=policy, limits=limits,
                    size=1) as pool:
        for kind in ("result", "key"):
            with pytest.raises(BadResult, match="lone surrogate"):
                pool.call({"kind": kind})
        assert pool.call({"kind": "pair"}) == {"text": "\U0001F600"}
        outcome = pool.call_outcome({"kind": "print"})
        assert outcome.result == {"ok": True}
        outcome.output.encode("utf-8")
        with pytest.raises(ToolRuntimeError) as info:
            pool.call({"kind": "error"})
        str(info.value).encode("utf-8")
        assert "bad" in str(info.value)
