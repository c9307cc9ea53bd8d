"""Issue 28: a CLI call on Ray never starts a cluster unless asked (`--ray-address local`), and
connecting has a deadline whose error carries Ray's own cause. Through the real CLI in fresh
processes, against no cluster (an empty Ray state folder) and an address nobody serves."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dyntools.errors import UsageError
from dyntools.executors import ray_connect

from .conftest import require_ray

require_ray()


@pytest.fixture(scope="module")
def reg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ray-connect") / "reg"
    done = subprocess.run([sys.executable, "-m", "dyntools", "ensure", "word_count",
                           "--registry", str(root)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return root


# Ray's "auto" also finds any cluster running on this machine by reading `ps` (the package's
# own test cluster, or another user's): in a PID namespace of its own, with its own /proc, a
# process sees no cluster at all.
ALONE = ["unshare", "--pid", "--fork", "--mount-proc"]


def _alone() -> list[str]:
    if shutil.which("unshare") is None or subprocess.run(
            [*ALONE, "true"], capture_output=True, check=False).returncode != 0:
        pytest.skip("needs unshare(1) with PID namespaces (root, or user namespaces)")
    return ALONE


def _call(reg: Path, tmp_path: Path, *extra: str, env: dict[str, str] | None = None,
          prefix: list[str] | None = None) -> tuple[int, str, float]:
    state = tmp_path / "ray-state"  # no cluster named here: nothing for auto to find
    state.mkdir(exist_ok=True)
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("DYNTOOLS_", "RAY_ADDRESS"))}
    started = time.monotonic()
    done = subprocess.run(
        [*(prefix or []), sys.executable, "-m", "dyntools", "call", "word_count", "--params",
         '{"text": "a"}', "--registry", str(reg), "--executor", "ray", "--log-format", "text",
         *extra],
        capture_output=True, text=True, timeout=180, check=False,
        env={**base, "RAY_TMPDIR": str(state), **(env or {})})
    return done.returncode, done.stderr, time.monotonic() - started


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_without_an_address_no_cluster_is_started(reg: Path, tmp_path: Path) -> None:
    code, err, took = _call(reg, tmp_path, prefix=_alone())
    assert code == 11, err
    assert "cannot connect to the Ray cluster at auto" in err
    assert "Could not find any running Ray instance" in err  # Ray's own words
    assert "--ray-address local starts one for this command" in err
    assert took < 15  # not the ~17 s a throwaway cluster takes to start
    assert not list((tmp_path / "ray-state").glob("session_*"))  # nothing was started
    assert "Traceback" not in err


def test_an_unreachable_cluster_ends_at_the_deadline_with_rays_cause(
        reg: Path, tmp_path: Path) -> None:
    code, err, took = _call(reg, tmp_path, "--ray-address", f"127.0.0.1:{_unused_port()}",
                            "--ray-connect-timeout", "6.5")
    assert code == 11, err
    assert "within 6.5 s" in err
    assert "Ray said: Failed to connect to GCS" in err  # Ray's C++ core, not a guess
    assert took < 30  # one deadline, not one per attempt (the warm-up shares it)
    # Ray's own log lines were captured, not printed: one error line, nothing raw
    assert [line for line in err.splitlines() if line.strip()] == [
        line for line in err.splitlines() if line.startswith("error: ")]
    env_code, env_err, _ = _call(reg, tmp_path, "--ray-address", "127.0.0.1:1",
                                 env={"DYNTOOLS_RAY_CONNECT_TIMEOUT": "1.5"})
    assert env_code == 11 and "within 1.5 s" in env_err


def test_a_bad_deadline_is_a_usage_error(reg: Path, tmp_path: Path) -> None:
    code, err, _ = _call(reg, tmp_path, "--ray-connect-timeout", "0")
    assert code == 2 and "--ray-connect-timeout" in err
    code, err, _ = _call(reg, tmp_path, env={"DYNTOOLS_RAY_CONNECT_TIMEOUT": "soon"})
    assert code == 2 and "DYNTOOLS_RAY_CONNECT_TIMEOUT must be a number" in err


def test_the_address_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ray_connect.address_for(None) == ray_connect.address_for("  ") == "auto"
    assert ray_connect.address_for("local") == "local"
    assert ray_connect.address_for("10.0.0.5:6379") == "10.0.0.5:6379"
    monkeypatch.delenv(ray_connect.CONNECT_TIMEOUT_ENV, raising=False)
    assert ray_connect.connect_timeout() == ray_connect.DEFAULT_CONNECT_TIMEOUT_S
    assert ray_connect.connect_timeout(2.5) == 2.5
    for bad in (0, -1, 3601):
        with pytest.raises(UsageError):
            ray_connect.connect_timeout(bad)
    assert ray_connect.ray_messages(
        "[2026-12-03 14:31:53,131 W 1 2] rpc_client.h:153: Failed to connect to GCS.\n"
        "2026-12-03 14:33:52,539\tWARNING worker.py:1681 -- SIGTERM handler is not set "
        "because current thread is not the main thread.\n"
        "[2026-12-03 14:31:58,133 W 1 2] rpc_client.h:153: Failed to connect to GCS.\n"
    ) == ["Failed to connect to GCS."]
