"""One real local Ray cluster for this test package, on 127.0.0.1, shared by every Ray test
(package-scoped: it stops when these tests are done, not at the end of the whole suite).

Under `make test` (DYNTOOLS_REQUIRE_EXTRAS=1) or CI a missing Ray is an error, never a skip:
`make test` installs the `ray` extra."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dyntools.gate.policy import Policy, load_policy
from dyntools.registry import Registry
from tests.support.environment import everything_required

# Ray resolves 127.0.0.1 to the machine's outward address unless told the cluster is local
# only (read when ray is first imported): the test cluster binds to the loopback alone.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

NAP = '''"""Sleeps for ms milliseconds, then answers with its tag."""
import time

NAME = "nap_tool"
DESCRIPTION = "Sleeps for ms milliseconds, then answers with its tag."
PARAMS = {{"type": "object", "properties": {{"ms": {{"type": "integer"}}}}}}


def run(params):
    time.sleep(params.get("ms", 0) / 1000)
    return {{"tag": "{tag}"}}
'''


def nap_source(tag: str = "v1") -> bytes:
    return NAP.format(tag=tag).encode()


def require_ray() -> Any:
    try:
        import ray
    except ImportError:
        if everything_required():
            raise
        pytest.skip("ray is not installed: pip install -e '.[ray]' (make test installs it)")
    return ray


@pytest.fixture(scope="package")
def ray_cluster() -> Iterator[str]:
    """A local cluster started for these tests; its GCS address."""
    ray = require_ray()
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
                 logging_level=logging.WARNING, log_to_driver=False)
    address = ray.get_runtime_context().gcs_address
    assert address.startswith("127.0.0.1:"), address  # never an outward interface
    yield address
    if started:
        ray.shutdown()


@pytest.fixture(scope="package")
def ray_executor(ray_cluster: str) -> Iterator[Any]:
    """Two SandboxHost actors on the one local node, shared by these tests."""
    from dyntools.executors.ray_executor import RayExecutor

    executor = RayExecutor(ray_cluster, actors_per_node=2, max_queue=64, call_grace_s=5.0,
                           compiled_graphs=True)  # the other tests use the default transport
    yield executor
    executor.close()


@pytest.fixture
def policy() -> Policy:
    return load_policy()


@pytest.fixture
def registry(tmp_path: Path, policy: Policy) -> Registry:
    registry = Registry.open(tmp_path / "reg", policy)
    registry.add_version("nap_tool", nap_source("v1"), {})
    return registry
