"""A CPython audit hook: an extra tripwire behind the other layers (worker side).

Audit hooks miss events (`_posixsubprocess.fork_exec` raises none, C extensions raise what
they like), so this is never the layer that makes something safe. It ends the call with
`sandbox_violation` when tool code triggers an event that computing code never needs.

Only events raised while tool code runs count: the worker's own bookkeeping (reading
tracebacks, unmarshalling params) raises some of them legitimately. Events that library code
raises during ordinary lazy imports (`import`, `open` for reading, `os.listdir`,
`sys._getframe`, `object.__setattr__`, and `exec`/`compile`, which import raises when it
runs or compiles a module) are deliberately not on the list.
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


class AuditTripwire:
    def __init__(self, stop: Callable[[str, str], NoReturn]) -> None:
        self.stop = stop
        self.inside_tool = False

    def install(self) -> None:
        # `types` reads `__code__` and `tb_frame` at import time to name its classes, which
        # raises `object.__getattr__`. `enum` imports it, so does `re`, so does every lazy
        # import of `re` by library code during a call (`datetime.strptime` -> `_strptime`,
        # `str.encode("idna")`): in a tool that did not import `re` itself, that ended the
        # call as a violation. Import it while the wire is still off (0.3 ms, once).
        import types  # noqa: F401

        stop_events = STOP_EVENTS

        def hook(event: str, args: tuple[Any, ...]) -> None:
            if not self.inside_tool:
                return
            if event in stop_events or (event == "open" and _writes(args)):
                self.inside_tool = False
                self.stop("sandbox_violation", f"the tool triggered the audit event {event!r}")

        sys.addaudithook(hook)


def _writes(args: tuple[Any, ...]) -> bool:
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 else 0
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & WRITE_FLAGS)
