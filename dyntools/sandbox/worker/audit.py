"""A CPython audit hook: an extra tripwire behind the other layers (worker side).

Audit hooks miss events (`_posixsubprocess.fork_exec` raises none, C extensions raise what
they like), so this is never the layer that makes something safe. It ends the call with
`sandbox_violation` when tool code triggers an event that computing code never needs.

Only events raised while tool code runs count: the worker's own bookkeeping (reading
tracebacks, unmarshalling params) raises some of them legitimately. Events that library code
raises during ordinary lazy imports (`import`, `open` for reading, `os.listdir`,
`sys._getframe`) are deliberately not on the list, and three are judged by their arguments:

- `object.__setattr__` ends the call when it writes a function's `__code__`, `__defaults__`
  or `__kwdefaults__`, an object's `__class__`, or anything onto a function: no path a library
  offers may rebuild tool code or swap an object's class (`uuid.UUID` sets its own fields with
  `object.__setattr__`, which is allowed);
- `compile` and `exec` end the call unless a module is being imported (library code run
  lazily by a call: its module body builds namedtuples, typing aliases with string forward
  references, ...), the code comes from a `.py` file or a frozen module, or it is the tool's
  own module body: a string compiled at run time (`typing.List["expr"]`) is code the
  RestrictedPython policy never saw. A tool cannot start an import of code of its choosing:
  the import guard hands it views, and C code imports only the modules it names itself.
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
    def __init__(self, stop: Callable[[str, str], NoReturn], tool_filename: str = "") -> None:
        self.stop = stop
        self.inside_tool = False
        self.tool_filename = tool_filename

    def install(self) -> None:
        # `types` reads `__code__` and `tb_frame` at import time to name its classes, which
        # raises `object.__getattr__`. `enum` imports it, so does `re`, so does every lazy
        # import of `re` by library code during a call (`datetime.strptime` -> `_strptime`,
        # `str.encode("idna")`): in a tool that did not import `re` itself, that ended the
        # call as a violation. Import it while the wire is still off (0.3 ms, once).
        import types  # noqa: F401

        stop_events = STOP_EVENTS
        judged = {"open": _writes, "object.__setattr__": _protected_write,
                  "compile": _compiles_string, "exec": self._foreign_code}

        def hook(event: str, args: tuple[Any, ...]) -> None:
            if not self.inside_tool or (event not in stop_events and event not in judged):
                return
            judge = judged.get(event)
            if judge is not None and event not in stop_events:
                self.inside_tool = False  # a judge reads a frame's code: an event itself
                verdict = judge(args)
                self.inside_tool = True
                if not verdict:
                    return
            self.inside_tool = False
            self.stop("sandbox_violation", f"the tool triggered the audit event {event!r}")

        sys.addaudithook(hook)


    def _foreign_code(self, args: tuple[Any, ...]) -> bool:
        filename = getattr(args[0], "co_filename", None) if args else None
        # A lazy import runs module code from `.py` files or frozen modules (`<frozen ...>`,
        # importlib's own): strings compiled at run time were already stopped at `compile`.
        return not (isinstance(filename, str)
                    and (filename.endswith(".py") or filename.startswith("<frozen ")
                         or filename == self.tool_filename)) and not importing()


def _protected_write(args: tuple[Any, ...]) -> bool:
    if len(args) < 2:
        return True
    target, name = args[0], args[1]
    return name in PROTECTED_ATTRIBUTES or type(target) is type(_protected_write)


def _compiles_string(args: tuple[Any, ...]) -> bool:
    filename = args[1] if len(args) > 1 else None
    return not (isinstance(filename, str) and filename.endswith(".py")
                and not filename.startswith("<")) and not importing()


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
