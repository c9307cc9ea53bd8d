"""A CPython audit hook: an extra tripwire behind the other layers (worker side).

Audit hooks miss events (`_posixsubprocess.fork_exec` raises none, C extensions raise what
they like), so this is never the layer that makes something safe. It ends the call with
`sandbox_violation` when tool code triggers an event that computing code never needs.

Only events raised while tool code runs count: the worker's own bookkeeping (reading
tracebacks, unmarshalling params) raises some of them legitimately. Events that library code
raises during ordinary lazy imports (`import`, `open` for reading, `os.listdir`,
`sys._getframe`) are deliberately not on the list, and three are judged by their arguments:

- `object.__setattr__` ends the call when it writes a function's `__code__`, `__defaults__`
  or `__kwdefaults__`, an object's `__class__`, anything onto a function, or any name that is
  not a plain `str` (a str subclass can answer a membership test one way and the lookup
  another): no path a library offers may rebuild tool code or swap an object's class
  (`uuid.UUID` sets its own fields with `object.__setattr__`, which is allowed);
- `compile` ends the call unless a module is being imported (library code run lazily by a
  call: its module body builds namedtuples, typing aliases with string forward references,
  ...), and `exec` unless a module is being imported or the code is the tool's own module
  body (the very code object the worker compiled). The file name a caller passes to
  `compile` is never trusted: `compile(text, "x.py", "exec")` is a string like any other. A
  tool cannot start an import of code of its choosing: the import guard hands it views, and
  C code imports only the modules it names itself.

The hook fails closed. On a stop or judged event during tool code, its first step (before
anything that can fail: no function call, no allocation) marks the call `tripped`; only a
judge that answers "allowed" takes the mark back. A judge that raises (RecursionError at the
edge of the stack, MemoryError) refuses the event, since the exception propagates into the
operation that raised it; the "inside tool" flag is restored in `finally`, so the wire is
never left off; and the worker ends after a tripped call even if the hook could not end it at
once (`stop` itself may fail at the edge of the stack). A call whose event was judged a
violation but could not be stopped (`violation`) is answered as a violation when the tool
returns.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

STOP_EVENTS = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "os.kill", "os.killpg", "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod",
    "os.chown", "os.symlink", "os.link", "os.truncate", "os.putenv", "os.unsetenv",
    "os.chdir", "os.setxattr", "os.removexattr", "os.startfile",
    "subprocess.Popen", "pty.spawn",
    "socket.__new__", "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg",
    "socket.getaddrinfo", "socket.gethostbyname",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.call_function",
    "ctypes.cdata", "ctypes.cdata/buffer", "ctypes.addressof", "ctypes.string_at",
    "ctypes.wstring_at", "ctypes.create_string_buffer", "ctypes.get_errno",
    "function.__new__", "code.__new__", "object.__getattr__", "object.__delattr__",
    "sys.settrace", "sys.setprofile", "sys.addaudithook", "sys._current_frames",
    "sys._current_exceptions", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "builtins.input", "builtins.breakpoint", "mmap.__new__",
    "shutil.rmtree", "shutil.copyfile", "shutil.move", "shutil.chown", "shutil.make_archive",
    "pickle.find_class", "webbrowser.open", "urllib.Request", "http.client.connect",
})
WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000  # O_WRONLY O_RDWR O_CREAT O_TRUNC O_APPEND
PROTECTED_ATTRIBUTES = frozenset({
    "__code__", "__defaults__", "__kwdefaults__", "__globals__", "__closure__", "__dict__",
    "__class__", "__bases__",
})


class AuditTripwire:
    """The hook and its flags. The flags are slots: setting one is a store into the object,
    which neither calls Python code nor allocates, so it cannot fail where nothing else can
    run (at the edge of the stack, out of memory)."""

    __slots__ = ("inside_tool", "stop", "tool_code", "tripped", "violation")

    def __init__(self, stop: Callable[[str, str], NoReturn]) -> None:
        self.stop = stop
        self.inside_tool = False
        # Set by a stop or judged event during tool code until a judge says "allowed":
        # when it is still set after the call, the worker ends.
        self.tripped = False
        self.violation: str | None = None  # an event judged a violation that `stop` missed
        self.tool_code: Any = None  # the tool's module code: the one exec of tool code

    def install(self) -> None:
        # `types` reads `__code__` and `tb_frame` at import time to name its classes, which
        # raises `object.__getattr__`. `enum` imports it, so does `re`, so does every lazy
        # import of `re` by library code during a call (`datetime.strptime` -> `_strptime`,
        # `str.encode("idna")`): in a tool that did not import `re` itself, that ended the
        # call as a violation. Import it while the wire is still off (0.3 ms, once).
        import types  # noqa: F401

        stop_events = STOP_EVENTS
        judged: dict[str, Callable[[tuple[Any, ...]], bool]] = {
            "open": _writes, "object.__setattr__": _protected_write,
            "compile": _compiles, "exec": self._foreign_code,
        }
        watched = stop_events | frozenset(judged)
        wire = self

        def hook(event: str, args: tuple[Any, ...]) -> None:
            if event in watched and wire.inside_tool:
                earlier = wire.tripped
                wire.tripped = True  # before anything that can fail; a clean verdict undoes it
                wire.inside_tool = False  # a judge reads a frame's code: an event itself
                try:
                    violation = event in stop_events or judged[event](args)
                finally:
                    wire.inside_tool = True
                if not violation:
                    wire.tripped = earlier
                    return
                wire.violation = event
                wire.stop("sandbox_violation", f"the tool triggered the audit event {event!r}")

        sys.addaudithook(hook)

    def _foreign_code(self, args: tuple[Any, ...]) -> bool:
        """Code run by `exec` that is neither the tool's module body nor a module's body
        run by an import in progress."""
        return not (args and args[0] is self.tool_code) and not importing()


def _protected_write(args: tuple[Any, ...]) -> bool:
    if len(args) < 2:
        return True
    target, name = args[0], args[1]
    return (type(name) is not str or name in PROTECTED_ATTRIBUTES
            or type(target) is type(_protected_write))


def _compiles(args: tuple[Any, ...]) -> bool:
    """Any compile outside an import: what a caller names the file says nothing."""
    return not importing()


def importing() -> bool:
    """Is a module being imported right now? importlib holds a lock per module while it
    finds and runs it (`_module_locks`). An entry can outlive its import (a failed import's
    traceback kept alive keeps the lock object), so only a lock that is still held counts
    (`count`: an int in 3.11, a list from 3.12)."""
    bootstrap = sys.modules.get("_frozen_importlib")
    locks = getattr(bootstrap, "_module_locks", None)
    if not locks:
        return False
    for ref in list(locks.values()):
        lock = ref()
        held: object = getattr(lock, "count", None)
        if lock is not None and held:
            return True
    return False


def _writes(args: tuple[Any, ...]) -> bool:
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 else 0
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & WRITE_FLAGS)
