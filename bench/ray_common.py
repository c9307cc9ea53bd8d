"""What bench/ray.py and bench/ray_wire.py share: the 1 ms tool and the bare Ray task.

Importing it also readies the process for Ray: this folder holds bench/ray.py, which must not
shadow the real `ray` package, so the folder leaves sys.path (import this module first), and
Ray binds to the machine's outward address unless told the cluster is local only.
"""

from __future__ import annotations

import marshal
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

TOOL = b'''"""Waits about a millisecond, then echoes n."""
import time

NAME = "one_ms_tool"
DESCRIPTION = "Waits about a millisecond, then echoes n."
PARAMS = {"type": "object", "properties": {"n": {"type": "integer"}}}


def run(params):
    time.sleep(0.001)
    return {"n": params.get("n", 0)}
'''


class Echo:
    """The bare Ray task: a method with SandboxHost.exchange's shape and wire (one marshal
    blob in, one out: dyntools.executors.node_actor.pack), answering at once or after 1 ms."""

    def exchange(self, blob: bytes) -> bytes:
        request = marshal.loads(blob)[0]
        return marshal.dumps([(request[0], ("ok", {"n": request[2]["n"]}))])

    def exchange_1ms(self, blob: bytes) -> bytes:
        time.sleep(0.001)
        return self.exchange(blob)


def remote_echo(ray: Any) -> Any:
    """`ray.remote(Echo)`, sent to the workers by value: they cannot import this folder."""
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return ray.remote(Echo)
