"""The warm pool: concurrency, replacement of broken workers, recycling, closing."""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from dyntools.errors import (
    BadResult,
    LayerUnavailable,
    LoadError,
    SandboxTimeout,
    SandboxViolation,
    ToolRuntimeError,
    UsageError,
    WorkerCrashed,
)
from dyntools.sandbox import SandboxLimits, WorkerPool, run_once
from tests.support.waiting import HANG_GUARD_S, wait_for

SQUARE = '''
def run(params):
    if params.get("loop"):
        while True:
            pass
    if params.get("sleep"):
        total = 0
        for i in range(params["sleep"]):
            total += i
        return {"total": total}
    return {"square": params["n"] * params["n"], "n": params["n"]}
'''


def test_200_concurrent_calls_over_4_workers(tool, policy, limits):
    path = tool(SQUARE)
    with WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=4) as pool:
        with ThreadPoolExecutor(max_workers=16) as executor:
            results = list(executor.map(lambda n: pool.call({"n": n}), range(200)))
        stats = pool.stats
    assert results == [{"square": n * n, "n": n} for n in range(200)]
    assert stats["started"] <= 4
    assert stats["calls"] == 200


def test_timeout_kills_the_worker_and_the_next_call_works(tool, policy):
    path = tool(SQUARE)
    limits = SandboxLimits(timeout_s=0.5)
    with WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=1) as pool:
        assert pool.call({"n": 3}) == {"square": 9, "n": 3}
        with pytest.raises(SandboxTimeout):
            pool.call({"loop": True})
        assert pool.call({"n": 4}) == {"square": 16, "n": 4}
        assert pool.stats["replaced"] == 1
        assert pool.stats["started"] == 2


def test_a_timeout_given_to_a_call_covers_its_wait_for_a_busy_worker(tool, policy):
    path = tool(SQUARE)
    limits = SandboxLimits(timeout_s=3.0)
    with WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=1) as pool:
        pool.start()
        looped: list[str] = []

        def loop() -> None:
            with pytest.raises(SandboxTimeout):
                pool.call({"loop": True})
            looped.append("timed out")

        busy = threading.Thread(target=loop)
        busy.start()
        time.sleep(0.3)  # the one worker is in the looping call now
        with pytest.raises(SandboxTimeout, match="stayed busy"):
            pool.call({"n": 2}, timeout=0.5)
        assert looped == []  # refused while the loop still held the worker: no wait for it
        busy.join()
        assert looped == ["timed out"]
        assert pool.call({"n": 2}) == {"square": 4, "n": 2}


def test_a_crashed_worker_is_replaced(tool, policy, limits):
    # Gate and guards bypassed (test-only switch) so the tool can kill its own process.
    path = tool('''
        import os
        import signal


        def run(params):
            if params.get("crash"):
                os.kill(os.getpid(), signal.SIGSEGV)
            return {"pid": os.getpid()}
        ''')
    with WorkerPool(path, module_name="crash_v1", policy=policy, limits=limits, size=1,
                    _skip_layers=frozenset({"restricted", "audit_hook", "seccomp",
                                               "landlock_scope"}),
                    allow_weaker_sandbox=True) as pool:
        pool.start()
        first = pool.call({})["pid"]
        with pytest.raises(WorkerCrashed):
            pool.call({"crash": True})
        second = pool.call({})["pid"]
        assert second != first
        assert pool.stats["replaced"] == 1


def test_runtime_errors_keep_the_worker(tool, policy, limits):
    path = tool(SQUARE)
    with WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=1) as pool:
        with pytest.raises(ToolRuntimeError) as info:
            pool.call({})
        assert info.value.details["trace"][0][1] == "run"
        assert pool.call({"n": 2})["square"] == 4
        assert pool.stats["started"] == 1


def _settled(pool: WorkerPool) -> dict:
    """The pool's stats once no background start is pending (live == size, all idle), or as
    they are when the hang guard gives up (the caller's assertions then say what is off)."""
    wait_for(lambda: pool.stats["live"] == pool.stats["size"] == pool.stats["idle"],
             timeout=HANG_GUARD_S)
    return pool.stats


def test_workers_recycle_after_max_calls(tool, policy, limits):
    path = tool(SQUARE)
    with WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=1,
                    max_calls_per_worker=3) as pool:
        for n in range(7):
            assert pool.call({"n": n})["square"] == n * n
        stats = _settled(pool)
        # The third call's release starts a replacement in the background; the old worker
        # serves until the replacement is idle, so only the very first call (lazy pool)
        # waited for a start.
        assert stats["started"] >= 2
        assert stats["retired"] == stats["started"] - 1
        assert stats["cold_starts"] == 1
        assert stats["replaced"] == 0


def test_retired_workers_are_replaced_in_the_background(tool, policy, limits):
    # Issue 15: a retirement used to cost the next call a cold start, and the pool shrank.
    path = tool(SQUARE)
    max_calls = 5
    with WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=2,
                    max_calls_per_worker=max_calls) as pool:
        pool.start()
        calls = 0
        deadline = time.monotonic() + 60
        while calls < 40 * max_calls or (pool.stats["retired"] < 6
                                         and time.monotonic() < deadline):
            assert pool.call({"n": calls})["square"] == calls * calls
            calls += 1
        stats = _settled(pool)
        assert stats["retired"] >= 6, stats  # many generations of workers came and went
        assert stats["cold_starts"] == 0, stats  # no call ever waited for a start
        assert stats["live"] == stats["idle"] == 2, stats  # still warm, at full size
        assert stats["started"] == stats["retired"] + 2, stats
        # Concurrent callers too: every call answered, the pool back at full size after.
        with ThreadPoolExecutor(max_workers=4) as executor:
            results = list(executor.map(lambda n: pool.call({"n": n}), range(100)))
        assert results == [{"square": n * n, "n": n} for n in range(100)]
        stats = _settled(pool)
        assert stats["live"] == stats["idle"] == 2, stats
        assert stats["started"] == stats["retired"] + 2, stats


def test_a_failed_background_start_falls_back_to_a_call_start(tool, policy, limits,
                                                                monkeypatch):
    path = tool(SQUARE)
    with WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=1,
                    max_calls_per_worker=2) as pool:
        pool.start()
        real_new_worker = pool._new_worker
        failures = {"n": 0}

        def failing(*, background: bool = False) -> object:
            if failures["n"] == 0:
                failures["n"] += 1
                raise WorkerCrashed("no start this time")
            return real_new_worker(background=background)

        monkeypatch.setattr(pool, "_new_worker", failing)
        for n in range(8):
            assert pool.call({"n": n})["square"] == n * n
        stats = _settled(pool)
        assert failures["n"] == 1
        assert stats["live"] == stats["idle"] == 1, stats
        assert stats["cold_starts"] <= 1, stats


def test_close_lets_running_calls_finish(tool, policy, limits):
    path = tool(SQUARE)
    pool = WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=1)
    pool.start()
    outcome: dict = {}

    def slow_call() -> None:
        outcome["result"] = pool.call({"sleep": 3_000_000})

    thread = threading.Thread(target=slow_call)
    thread.start()
    while pool.stats["busy"] == 0:
        time.sleep(0.005)
    pool.close(wait=False)
    with pytest.raises(UsageError):
        pool.call({"n": 1})
    thread.join()
    assert outcome["result"]["total"] == sum(range(3_000_000))
    pool.close(wait=True)
    assert pool.stats["live"] == 0


def test_close_ends_a_worker_still_starting_in_the_background(tool, policy):
    """A warm-up no call waits for does not hold close() until the start-up limit (an
    interrupted `dyntools ensure` waited so for a prewarm on a loaded machine)."""
    path = tool(SQUARE)
    limits = SandboxLimits(startup_timeout_s=300.0)
    pool = WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=1)
    stalled = pool._early[0].process  # its interpreter, frozen before it can say hello
    os.kill(stalled.pid, signal.SIGSTOP)
    failed: list[BaseException] = []

    def warm_up() -> None:
        try:
            pool.start()
        except BaseException as exc:
            failed.append(exc)

    starter = threading.Thread(target=warm_up)
    starter.start()
    while pool.stats["started"] == 0:
        time.sleep(0.005)
    closer = threading.Thread(target=pool.close, kwargs={"wait": True})
    closer.start()
    closer.join(60)  # waiting for the start would take the 300 s start-up limit
    assert not closer.is_alive()
    starter.join(60)
    assert not starter.is_alive() and failed == []
    assert stalled.poll() is not None  # ended (and reaped) by the start that failed
    assert pool.stats["live"] == 0 and pool.stats["idle"] == 0
    with pytest.raises(UsageError):
        pool.call({"n": 1})


def test_a_call_that_starts_its_own_worker_is_not_cut_by_close(tool, policy, limits):
    path = tool(SQUARE)
    pool = WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=1)
    outcome: dict = {}

    def cold_call() -> None:
        outcome["result"] = pool.call({"n": 7})

    caller = threading.Thread(target=cold_call)
    caller.start()
    while pool.stats["started"] == 0:
        time.sleep(0.001)
    pool.close(wait=True)
    caller.join(60)
    assert outcome["result"] == {"square": 49, "n": 7}


def test_a_required_layer_that_is_off_is_an_error(tool, policy, limits):
    path = tool(SQUARE)
    pool = WorkerPool(path, module_name="square_v1", policy=policy, limits=limits,
                      require_layers=frozenset({"seccomp"}),
                      _skip_layers=frozenset({"seccomp"}))
    with pytest.raises(LayerUnavailable) as info:
        pool.call({"n": 1})
    assert info.value.details["missing"] == ["seccomp"]
    pool.close()


def test_run_once(tool, policy, limits):
    assert run_once(tool(SQUARE), {"n": 5}, policy=policy, limits=limits)["square"] == 25


def test_results_over_the_cap_and_params_over_the_cap(tool, policy):
    path = tool('''
        def run(params):
            return {"data": "x" * params["size"]}
        ''')
    limits = SandboxLimits(max_result_bytes=1000, max_params_bytes=1000)
    with WorkerPool(path, module_name="big_v1", policy=policy, limits=limits, size=1) as pool:
        assert pool.call({"size": 10}) == {"data": "x" * 10}
        with pytest.raises(BadResult):
            pool.call({"size": 5000})
        with pytest.raises(UsageError):
            pool.call({"size": 1, "padding": "y" * 5000})
        with pytest.raises(UsageError):
            pool.call({"size": {1, 2}.__class__})
        assert pool.call({"size": 3}) == {"data": "xxx"}


def test_compile_errors_are_load_errors(tool, policy, limits):
    path = tool('''
        class Sneaky:
            pass


        def run(params):
            return {}
        ''')
    with pytest.raises(LoadError):
        WorkerPool(path, module_name="bad_v1", policy=policy, limits=limits)


def test_tool_prints_never_corrupt_the_protocol(tool, policy, limits):
    path = tool('''
        def run(params):
            print("\\x00\\x00\\x00\\x10{not a frame", end="")
            print(params["n"])
            return {"n": params["n"]}
        ''')
    with WorkerPool(path, module_name="noisy_v1", policy=policy, limits=limits, size=1) as pool:
        for n in range(3):
            outcome = pool.call_outcome({"n": n})
            assert outcome.result == {"n": n}
            assert outcome.output.endswith(f"{n}\n")


def test_attribute_writes_end_the_call(tool, policy, limits):
    path = tool('''
        def run(params):
            params.extra = 1
            return {}
        ''')
    with WorkerPool(path, module_name="write_v1", policy=policy, limits=limits) as pool:
        with pytest.raises(SandboxViolation):
            pool.call({})
        assert pool.stats["replaced"] == 1


REALISTIC = '''
def word_stats(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for word in re.findall(r"[a-z]+", text.lower()):
        counts[word] = counts.get(word, 0)
        counts[word] += 1
    return counts


def run(params: Dict[str, Any]) -> Dict[str, Any]:
    stats = word_stats(params["text"])
    top = sorted(stats.items(), key=lambda item: (-item[1], item[0]))[:3]
    when = datetime.datetime.strptime(params["date"], "%Y-%m-%d")
    pairs = [f"{i}:{w}" for i, (w, _) in enumerate(top)]
    try:
        number = int(params.get("number", "x"))
    except ValueError:
        number = -1
    return {
        "top": top,
        "pairs": pairs,
        "weekday": when.strftime("%A"),
        "next_day": (when + datetime.timedelta(days=1)).date().isoformat(),
        "counter": dict(collections.Counter(params["text"].split()).most_common(1)),
        "quoted": urllib.parse.quote(params["text"]),
        "root": math.sqrt(16),
        "json": json.dumps({"n": number}),
        "nfkd": unicodedata.normalize("NFKD", "\\u00e9"),
    }
'''


def test_a_realistic_tool_runs_with_every_layer_on(tool, policy, limits):
    path = tool(REALISTIC, imports=(
        "import collections\nimport datetime\nimport json\nimport math\nimport re\n"
        "import unicodedata\nimport urllib.parse\nfrom typing import Any, Dict"))
    from dyntools.gate import check_source

    assert check_source(path.read_bytes(), policy).accepted
    result = run_once(path, {"text": "b a b c a b", "date": "2024-02-29"}, policy=policy,
                      limits=limits, require_layers=frozenset({"seccomp", "landlock_fs"}))
    assert result == {
        "top": [["b", 3], ["a", 2], ["c", 1]],
        "pairs": ["0:b", "1:a", "2:c"],
        "weekday": "Thursday",
        "next_day": "2024-03-01",
        "counter": {"b": 3},
        "quoted": "b%20a%20b%20c%20a%20b",
        "root": 4.0,
        "json": '{"n": -1}',
        "nfkd": "e\u0301",
    }


def test_a_module_level_error_is_a_runtime_error(tool, policy, limits):
    path = tool('''
        LIMIT = {"a": 1}["b"]


        def run(params):
            return {}
        ''')
    with pytest.raises(ToolRuntimeError) as info:
        run_once(path, {}, policy=policy, limits=limits)
    assert info.value.details["trace"][0][2] == 'LIMIT = {"a": 1}["b"]'


SYNTAX = '''
def helper(*args, **kwargs):
    return sum(args) + len(kwargs)


def run(params):
    values = list(params["values"])
    first, *rest = values
    total = helper(*values, **{"a": 1})
    if (n := len(rest)) > 1:
        total += n
    data = {"k": [1, 2, 3]}
    data["k"][1:2] = []
    del data["k"][0]
    squares = {v: v * v for v in values if v % 2}
    gen = sum(v for v in values)
    pick = (lambda x, y=2: x * y)(3)
    assert 0 < first < 100, "first out of range"
    try:
        raise ValueError("inner") from None
    except ValueError as exc:
        message = str(exc)
    text = f"{first:>4}|{total!r}"
    counts = {}
    for ch in "abca":
        counts[ch] = counts.get(ch, 0) + 1
    return {"first": first, "rest": rest, "total": total, "data": data, "squares": squares,
            "gen": gen, "pick": pick, "message": message, "text": text, "counts": counts}
'''


def test_common_syntax_compiles_and_runs(tool, policy, limits):
    path = tool(SYNTAX)
    assert run_once(path, {"values": [3, 4, 5]}, policy=policy, limits=limits) == {
        "first": 3, "rest": [4, 5], "total": 15, "data": {"k": [3]},
        "squares": {"3": 9, "5": 25}, "gen": 12, "pick": 6, "message": "inner",
        "text": "   3|15", "counts": {"a": 2, "b": 1, "c": 1},
    }


def test_the_cpu_limit_ends_a_busy_worker(tool, policy):
    path = tool(SQUARE)
    limits = SandboxLimits(timeout_s=30.0, cpu_s=1)
    with WorkerPool(path, module_name="square_v1", policy=policy, limits=limits, size=1) as pool:
        with pytest.raises(SandboxTimeout, match="CPU"):
            pool.call({"loop": True})
        assert pool.call({"n": 2})["square"] == 4


def test_deep_recursion_is_a_runtime_error_with_a_short_trace(tool, policy, limits):
    path = tool('''
        def down(n):
            return down(n + 1)


        def run(params):
            return down(0)
        ''')
    with WorkerPool(path, module_name="deep_v1", policy=policy, limits=limits, size=1) as pool:
        with pytest.raises(ToolRuntimeError, match="RecursionError") as info:
            pool.call({})
        assert len(info.value.details["trace"]) == 21
        assert pool.stats["started"] == 1


def test_output_cap_counts_bytes(tool, policy):
    path = tool('''
        def run(params):
            print("\\U0001F600" * params["n"], end="")
            return {}
        ''')
    limits = SandboxLimits(max_output_bytes=400)
    with WorkerPool(path, module_name="emoji_v1", policy=policy, limits=limits, size=1) as pool:
        assert pool.call_outcome({"n": 100}).output == "\U0001F600" * 100
        with pytest.raises(BadResult, match="400 bytes"):
            pool.call({"n": 101})


def test_start_prewarms_every_slot(tool, policy, limits):
    with WorkerPool(tool(SQUARE), module_name="square_v1", policy=policy, limits=limits,
                    size=3) as pool:
        pool.start()
        assert pool.stats["idle"] == 3 and pool.stats["started"] == 3
        pool.start()  # already full: nothing more starts
        assert pool.stats["started"] == 3
        assert pool.layers["seccomp"]["active"]


FUNCTION_IMPORTS = '''
def helper(values):
    from statistics import median

    return median(values)


def run(params):
    import math
    import json as codec

    def root(value):
        return math.isqrt(value)

    return {"root": root(params["n"]), "median": helper([1, params["n"], 9]),
            "text": codec.dumps({"n": params["n"]})}
'''


def test_function_level_imports_run_in_a_worker(tool, policy, limits):
    # No top-level import at all: the worker must still import math, statistics and json
    # (before lockdown) because the functions import them (issue 15).
    from dyntools.gate import check_source

    path = tool(FUNCTION_IMPORTS)
    assert check_source(path.read_text(), policy).accepted
    with WorkerPool(path, module_name="fimports_v1", policy=policy, limits=limits,
                    size=1) as pool:
        assert pool.call({"n": 17}) == {"root": 4, "median": 9, "text": '{"n": 17}'}
        assert pool.call({"n": 4}) == {"root": 2, "median": 4, "text": '{"n": 4}'}


def test_a_function_level_import_of_a_refused_member_is_stopped_in_the_worker(
        tool, policy, limits):
    # The gate refuses it (DT202); with the gate bypassed the worker's import guard holds.
    path = tool('''
        def run(params):
            from typing import get_type_hints
            return {"x": 1}
        ''')
    with WorkerPool(path, module_name="fimports_v2", policy=policy, limits=limits,
                    size=1) as pool, pytest.raises(SandboxViolation):
        pool.call({})
