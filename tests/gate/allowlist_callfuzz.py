"""Call every allowed member with small arguments; report results a tool must never hold.

Run by tests/gate/test_allowlist_drift.py in a child process (the calls change process state:
decimal contexts, random seeds, csv dialects), with the allow-list path as the only argument.
Prints a JSON object: {"results": N, "hits": {"<what was returned>": ["<call>", ...]}}.

What counts as a hit: a module, frame, code object, traceback, metaclass (`type` included),
`object`, a refused builtin, or a member that the allow-list excludes. This is how
`typing.get_origin(typing.Type) is type` was found: attribute walks cannot see it.
"""

from __future__ import annotations

import builtins
import importlib
import io
import json
import signal
import sys
import types
import typing
from collections.abc import Iterator
from typing import Any

from dyntools.gate.policy import load_policy

CALL_BUDGET_SECONDS = 0.05
# Calls whose whole effect is to wait; the budget would stop them, but they waste it.
SKIP = frozenset({"time.sleep"})
VALUE_TYPES = (int, float, complex, str, bytes, bool, tuple, frozenset, type(None))
BASIC_ARGUMENTS: list[Any] = [
    0, 1, 2, -1, 1.5, "a", "UTC", "int", "%Y", b"a", [1, 2], (1, 2), {"a": 1}, None, True,
    int, str, list, dict, len, ValueError("x"),
    # the typing alias objects themselves, as a tool would pass them
    typing.Type, typing.Type[int], typing.List[int], typing.Callable, typing.Optional[int],  # noqa: UP006, UP045
]  # fmt: skip


class CallTimeout(Exception):
    pass


ARMED = [False]  # a call is running under its timer


def on_alarm(signum: int, frame: object) -> None:
    # An alarm delivered just as its call's timer was disarmed may run this handler only
    # later, anywhere in the loop (seen on a loaded machine): only a running call is ended.
    if ARMED[0]:
        raise CallTimeout


def judge(value: object, refused: dict[int, str]) -> str | None:
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    if isinstance(value, types.FrameType | types.CodeType | types.TracebackType):
        return "frame, code or traceback"
    if isinstance(value, type) and issubclass(value, type):
        return f"metaclass {value.__name__}"
    return refused.get(id(value))


def argument_sets(members: list[object]) -> Iterator[tuple[object, ...]]:
    yield ()
    for first in BASIC_ARGUMENTS + members:
        yield (first,)
    for first in BASIC_ARGUMENTS:
        for second in BASIC_ARGUMENTS:
            yield (first, second)


def main(path: str) -> dict[str, Any]:
    policy = load_policy(path)
    refused = {id(object): "object", id(type): "metaclass type"}
    refused.update(
        (id(getattr(builtins, name)), f"builtin {name}")
        for name in policy.denied_builtins
        if hasattr(builtins, name)
    )
    allowed: list[tuple[str, object]] = []
    for name, module_policy in sorted(policy.python_modules.items()):
        module = importlib.import_module(name)
        for member in sorted(module_policy.excluded):
            value = getattr(module, member, None)
            if value is not None and not isinstance(value, VALUE_TYPES):
                refused[id(value)] = f"excluded {name}.{member}"
        allowed += [
            (f"{name}.{member}", getattr(module, member))
            for member in sorted(module_policy.members)
            if hasattr(module, member)
        ]
    values = [value for _, value in allowed]
    hits: dict[str, list[str]] = {}
    results = 0
    signal.signal(signal.SIGALRM, on_alarm)
    real_stdout, real_stderr = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = io.StringIO()
    try:
        for dotted, function in allowed:
            if dotted in SKIP or not callable(function):
                continue
            for args in argument_sets(values):
                try:
                    ARMED[0] = True
                    signal.setitimer(signal.ITIMER_REAL, CALL_BUDGET_SECONDS)
                    try:
                        result = function(*args)
                    finally:
                        ARMED[0] = False
                        signal.setitimer(signal.ITIMER_REAL, 0)
                except BaseException:  # every failure is simply not a result
                    # (also an alarm that fired as the timer was being disarmed: on a loaded
                    # machine it lands in the finally, which raised out of the whole run)
                    continue
                results += 1
                parts = result[:8] if isinstance(result, tuple | list) else ()
                for candidate in (result, *parts):
                    why = judge(candidate, refused)
                    if why is not None:
                        shown = ", ".join(type(arg).__name__ for arg in args)
                        hits.setdefault(why, []).append(f"{dotted}({shown})")
    finally:
        sys.stdout, sys.stderr = real_stdout, real_stderr
    return {"results": results, "hits": hits}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
