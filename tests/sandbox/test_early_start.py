"""Issue 15: a worker's interpreter starts before the host transforms its tool.

A pool starts its first interpreter before it builds the spec, tells it the tool's allowed
imports as soon as they are parsed, and the worker imports its own modules and those before
the init message arrives; `prestart()` starts one even earlier, for the next pool to take.
Nothing reaches the interpreter before the spec exists, and nothing changes in what it does
with the init message (the layer report still comes before any tool code).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dyntools.errors import LoadError
from dyntools.sandbox import WorkerPool
from dyntools.sandbox import pool as pool_module

SLUG = '''
def run(params):
    return {"slug": re.sub(r"[^a-z0-9]+", "-", params["text"].lower()).strip("-")}
'''


def test_the_tools_modules_are_imported_before_the_init_message(tool, policy, limits):
    with WorkerPool(tool(SLUG, imports="import re"), module_name="early_v1", policy=policy,
                    limits=limits, size=1) as pool:
        assert pool.call({"text": "Hello World"}) == {"slug": "hello-world"}
        phases = pool._idle[0].startup
    assert list(phases)[:4] == ["spawn", "interpreter", "preloaded", "preimported"]
    assert phases["init_received"] >= 0


def test_a_prestarted_interpreter_is_the_next_pools_first_worker(tool, policy, limits):
    pool_module.prestart()
    spare = list(pool_module._spare)
    assert len(spare) == 1
    interpreter, directory = spare[0]
    with WorkerPool(tool(SLUG, imports="import re"), module_name="early_v1", policy=policy,
                    limits=limits, size=1) as pool:
        assert not pool_module._spare
        assert pool.call({"text": "A b"}) == {"slug": "a-b"}
        assert pool._idle[0].pid == interpreter.process.pid
        assert pool._cwd is directory
    assert not os.path.exists(directory.path)  # the pool removed the directory it took


def test_a_pool_that_fails_to_build_its_spec_ends_its_interpreter(tool, policy, limits):
    pool_module.prestart()
    interpreter, directory = pool_module._spare[0]
    with pytest.raises(LoadError):
        WorkerPool(tool("def run(params):\n    return {\n"), module_name="early_v1",
                   policy=policy, limits=limits, size=1)
    assert interpreter.process.poll() is not None
    assert not os.path.exists(directory.path)


def test_an_interpreter_no_pool_takes_ends_at_exit(tmp_path):
    code = ("from dyntools.sandbox import pool; pool.prestart(); "
            "i, d = pool._spare[0]; print(i.process.pid, d.path)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    pid, path = out.stdout.split()
    assert not os.path.exists(path)
    assert not os.path.exists(f"/proc/{pid}")


def test_a_pool_closed_before_any_call_ends_its_interpreter(tool, policy, limits):
    pool = WorkerPool(tool(SLUG, imports="import re"), module_name="early_v1", policy=policy,
                      limits=limits, size=1)
    interpreter = pool._early[0]
    assert interpreter.alive()
    pool.close()
    assert interpreter.process.poll() is not None
    assert not os.path.exists(pool._cwd.path)
