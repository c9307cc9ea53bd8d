"""Issue 9, finding 12: after a breach the warm worker must not be able to hand one caller's
answer to another, or keep running code between calls.

The tools here play a worker that is already owned (the Python layer and seccomp are switched
off with the test-only `_skip_layers`, so they hold the real builtins, and so are rlimits:
for a worker that is not root, RLIMIT_NPROC 0 refuses fork and threads before the protocol
defences below are reached): they write frames of their own on the protocol pipe and start
threads. Every reply carries the call's id, and the
host discards a worker that sends anything but the one reply to the call it is answering.
"""

from __future__ import annotations

from typing import Any

import pytest

from dyntools.errors import SandboxViolation, ToolRuntimeError, UsageError
from dyntools.sandbox import WorkerPool
from dyntools.sandbox.runner import check_plain_data

from .conftest import only

OWNED = frozenset({"restricted", "audit_hook", "seccomp", "rlimits"})

# Finds the worker's protocol channel from inside the tool (possible only with the Python
# layer off) and writes a frame of its own with whatever id it is told to use.
FORGER = '''
import gc
import posix
import threading
import time


def channel():
    gc.unfreeze()  # the worker froze everything it had after load (gc.freeze)
    for obj in gc.get_objects():
        if getattr(type(obj), "__name__") == "Channel" and hasattr(obj, "opening"):
            return obj
    raise RuntimeError("no channel")


def forge(text):
    ch = channel()
    data = text.encode("ascii")
    posix.write(ch.write_fd, len(data).to_bytes(4, "big") + data)


def run(params):
    mode = params.get("mode")
    ch = channel()
    if mode == "extra_reply":
        # A second reply with this call's own id, sent before the real one.
        forge(ch.opening + '"ok":{"forged":true}}')
    elif mode == "future_reply":
        # A reply for a later call, guessing its id.
        forge('{"id":1,"ok":{"forged":true}}')
    elif mode == "late_writer":
        # A process that shares the pipe and writes while the worker is idle.
        if posix.fork() == 0:
            time.sleep(0.2)
            forge('{"id":2,"ok":{"forged":true}}')
            getattr(posix, "_exit")(0)
    elif mode == "thread":
        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
    return {"caller": params["caller"]}
'''


def make_pool(tool, policy, limits, *, skip=OWNED):
    return WorkerPool(tool(FORGER), module_name="forger_v1", policy=policy, limits=limits,
                      size=1, _skip_layers=skip, allow_weaker_sandbox=True)


def test_a_second_reply_never_reaches_the_next_caller(tool, policy, limits):
    with make_pool(tool, policy, limits) as pool:
        pool.start()
        outcomes = []
        for caller, mode in (("alice", "extra_reply"), ("bob", None), ("carol", None)):
            try:
                outcomes.append(pool.call({"caller": caller, "mode": mode}))
            except SandboxViolation as exc:
                outcomes.append(exc.reason)
        # Alice's call may see her own forged reply or a violation; bob and carol never see
        # alice's answer (the forged frame, or her real reply arriving late).
        assert outcomes[0] in ({"forged": True}, {"caller": "alice"}, "sandbox_violation")
        for caller, outcome in zip(("bob", "carol"), outcomes[1:], strict=True):
            assert outcome in ({"caller": caller}, "sandbox_violation")
        assert outcomes[2] == {"caller": "carol"}  # a fresh worker answers
        assert pool.stats["replaced"] >= 1


def test_a_reply_for_a_later_call_is_refused(tool, policy, limits):
    with make_pool(tool, policy, limits) as pool:
        pool.start()
        try:
            outcome = pool.call({"caller": "alice", "mode": "future_reply"})
        except SandboxViolation:
            outcome = "refused"
        assert outcome in ("refused", {"caller": "alice"})
        # Whatever alice saw, the next caller gets only her own answer.
        assert pool.call({"caller": "bob"}) == {"caller": "bob"}


def test_a_frame_sent_between_calls_is_refused(tool, policy, limits):
    import time

    with make_pool(tool, policy, limits) as pool:
        pool.start()
        assert pool.call({"caller": "alice", "mode": "late_writer"}) == {"caller": "alice"}
        time.sleep(0.5)  # the forked writer sends its frame while the worker is idle
        with pytest.raises(SandboxViolation, match="not the one reply"):
            pool.call({"caller": "bob"})
        assert pool.call({"caller": "carol"}) == {"caller": "carol"}


def test_a_thread_that_outlives_the_call_ends_the_worker(tool, policy, limits):
    # Seccomp off (it would kill the clone itself): the worker's own check stops the call.
    with make_pool(tool, policy, limits) as pool:
        with pytest.raises(SandboxViolation, match="thread outlived"):
            pool.call({"caller": "alice", "mode": "thread"})
        assert pool.call({"caller": "bob"}) == {"caller": "bob"}


def test_rlimits_alone_refuse_a_thread_start(tool, policy, limits):
    """The worker is not root (a root-started worker leaves uid 0 in its minimal root), so
    RLIMIT_NPROC 0 holds: the thread never starts."""
    with make_pool(tool, policy, limits, skip=OWNED - {"rlimits"}) as pool, \
            pytest.raises(ToolRuntimeError, match="can't start new thread"):
        pool.call({"caller": "alice", "mode": "thread"})


def test_seccomp_alone_kills_a_thread_start(tool, policy, limits):
    # Alone: with rlimits on, RLIMIT_NPROC would refuse the clone before seccomp sees it.
    with (make_pool(tool, policy, limits, skip=only("seccomp")) as pool,
          pytest.raises(SandboxViolation, match="seccomp")):
        pool.call({"caller": "alice", "mode": "thread"})


@pytest.mark.parametrize("params", [
    {"code": (lambda: 0).__code__},
    {"nested": [1, {"deeper": (lambda: 0).__code__}]},
    {"set": {1, 2}},
    {1.5j: 1},
])
def test_params_are_json_shaped_data_only(params):
    with pytest.raises(UsageError):
        check_plain_data(params)


def test_json_shaped_params_pass():
    check_plain_data({"a": [1, 2.5, "x", None, True, {"b": (1, 2)}], "c": b"raw", 3: "k"})


def _cyclic() -> dict[str, Any]:
    loop: dict[str, Any] = {"a": 1}
    loop["self"] = [loop]
    return loop


def _doubling(levels: int) -> list[Any]:
    node: list[Any] = [1]
    for _ in range(levels):
        node = [node, node]  # 2**levels leaves, 2 * levels containers
    return node


@pytest.mark.timeout(10)
@pytest.mark.parametrize("params", [_cyclic(), {"deep": _doubling(80)},
                                    {"twice": [{"x": 1}] * 2}])
def test_params_that_are_not_a_tree_are_refused_at_once(params: dict[str, Any]) -> None:
    with pytest.raises(UsageError, match="appears twice"):
        check_plain_data(params)


def test_empty_containers_may_repeat() -> None:
    check_plain_data({"a": (), "b": (), "c": [[], []], "d": [{}, {}]})
