"""The seccomp filter, built once in the host with libseccomp and shipped to workers as BPF.

Building in the host keeps libseccomp and its ctypes binding out of the worker, which only
hands the finished program to prctl (about 30 µs).

Default allow, with these refusals (DESIGN.md §4):
- kill the process on process and thread creation (fork, vfork, clone), exec,
  sockets other than AF_UNIX, tracing and other processes' memory, namespaces and mounts,
  kernel keyrings, BPF, perf, io_uring (it performs system calls the filter never sees),
  module loading, kexec, reboot, swap;
- EPERM for socket(AF_UNIX) and socketpair (glibc's user lookup opens one during a lazy
  `import zoneinfo`), for signals sent with kill/tkill/tgkill/sigqueue/pidfd (a worker has no
  one to signal), and for prlimit64 on another process;
- ENOSYS for clone3, so glibc falls back to clone, which is killed: a worker never needs a
  thread, and a thread started by a tool could outlive its call and touch the next one's
  data.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from functools import cache
from typing import Any

AF_UNIX = 1
LIBSECCOMP_SONAME = "libseccomp.so.2"
EPERM = 1
ENOSYS = 38

KILLED = (
    "clone", "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv",
    "process_vm_writev",
    "process_madvise", "pidfd_getfd", "kcmp", "mount", "umount2", "pivot_root", "chroot",
    "setns", "unshare", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
    "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff", "acct", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "open_by_handle_at", "name_to_handle_at", "connect", "bind", "listen", "accept",
    "accept4",
)
REFUSED_EPERM = (
    "socketpair", "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
    "pidfd_send_signal", "pidfd_open", "personality",
)


class SeccompUnavailable(RuntimeError):
    """pyseccomp or the system libseccomp is missing; the worker runs without this layer."""


@cache
def seccomp_program() -> bytes:
    """The BPF program (raw `struct sock_filter` array) for this machine's architecture.

    Built with libseccomp through `_Libseccomp`, a binding of the five functions it needs,
    loaded by its soname. pyseccomp makes the very same calls (`reference_program`, which the
    tests hold this to, byte for byte), but importing it costs a cold `dyntools call` 20-30 ms:
    it looks libc and libseccomp up with `ctypes.util.find_library`, which runs `ldconfig -p`
    in a subprocess, twice."""
    lib = _Libseccomp.load()
    return _build(lib.rule_adder(), lib)


def reference_program() -> bytes:
    """The same filter built through pyseccomp, as this module built it before (tests)."""
    try:
        import pyseccomp as sc
    except (ImportError, OSError) as exc:  # the binding or libseccomp.so is missing
        raise SeccompUnavailable(f"pyseccomp is not usable: {exc}") from exc
    flt = sc.SyscallFilter(sc.ALLOW)
    arch = sc.system_arch()

    def add(action: int, name: str, *args: tuple[int, int, int]) -> None:
        if sc.resolve_syscall(arch, name) < 0:
            return  # this architecture has no such system call, so nothing can call it
        flt.add_rule(action, name, *(sc.Arg(*arg) for arg in args))

    _rules(add)
    return _exported(flt.export_bpf)


# (argument index, comparison, value): libseccomp's `struct scmp_arg_cmp` without datum_b.
ArgRule = tuple[int, int, int]
_NE = 1
_EQ = 4
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000


def _errno(number: int) -> int:
    return 0x00050000 | (number & 0x0000FFFF)


def _rules(add: Callable[..., None]) -> None:
    """Every rule of the filter, in the order it is built (the order shapes the program)."""
    for name in KILLED:
        add(_KILL_PROCESS, name)
    for name in REFUSED_EPERM:
        add(_errno(EPERM), name)
    add(_errno(ENOSYS), "clone3")
    add(_errno(EPERM), "socket", (0, _EQ, AF_UNIX))
    add(_KILL_PROCESS, "socket", (0, _NE, AF_UNIX))
    add(_errno(EPERM), "prlimit64", (0, _NE, 0))


def _exported(export: Callable[[Any], None]) -> bytes:
    """The program `export(file)` writes, read back (an in-memory file: no temp file)."""
    fd = os.memfd_create("dyntools-seccomp", os.MFD_CLOEXEC)
    with os.fdopen(fd, "w+b") as handle:
        export(handle)
        handle.flush()
        os.lseek(handle.fileno(), 0, os.SEEK_SET)
        program = handle.read()
    if not program or len(program) % 8:
        raise SeccompUnavailable("libseccomp exported an empty or malformed program")
    return program


def _build(add: Callable[..., None], lib: _Libseccomp) -> bytes:
    _rules(add)
    return _exported(lib.export)


class _ArgCmp(ctypes.Structure):
    """libseccomp's `struct scmp_arg_cmp`."""

    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


class _Libseccomp:
    """libseccomp's filter-building functions, called as pyseccomp calls them."""

    def __init__(self, cdll: ctypes.CDLL) -> None:
        self.cdll = cdll
        cdll.seccomp_init.argtypes = (ctypes.c_uint32,)
        cdll.seccomp_init.restype = ctypes.c_void_p
        cdll.seccomp_release.argtypes = (ctypes.c_void_p,)
        cdll.seccomp_release.restype = None
        cdll.seccomp_arch_native.argtypes = ()
        cdll.seccomp_arch_native.restype = ctypes.c_uint32
        # pyseccomp leaves this one's types to ctypes' defaults (int arguments, char* bytes)
        cdll.seccomp_rule_add_array.argtypes = (
            ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p)
        cdll.seccomp_rule_add_array.restype = ctypes.c_int
        cdll.seccomp_export_bpf.argtypes = (ctypes.c_void_p, ctypes.c_int)
        cdll.seccomp_export_bpf.restype = ctypes.c_int
        self.context = cdll.seccomp_init(_ALLOW)
        if self.context is None:
            raise SeccompUnavailable("seccomp_init failed")
        self.arch = cdll.seccomp_arch_native()

    @classmethod
    def load(cls) -> _Libseccomp:
        try:
            return cls(ctypes.CDLL(LIBSECCOMP_SONAME))
        except (OSError, AttributeError) as exc:
            raise SeccompUnavailable(f"libseccomp is not usable: {exc}") from exc

    def rule_adder(self) -> Callable[..., None]:
        cdll = self.cdll

        def add(action: int, name: str, *args: ArgRule) -> None:
            number = cdll.seccomp_syscall_resolve_name_arch(self.arch, name.encode())
            if number < 0:
                return  # this architecture has no such system call, so nothing can call it
            # pyseccomp resolves again for the native arch token (0): the same number
            number = cdll.seccomp_syscall_resolve_name_arch(0, name.encode())
            array = (_ArgCmp * len(args))()
            for index, (arg, op, value) in enumerate(args):
                array[index].arg, array[index].op = arg, op
                array[index].datum_a, array[index].datum_b = value, 0
            status = cdll.seccomp_rule_add_array(self.context, action, number, len(args),
                                                 ctypes.cast(array, ctypes.c_void_p))
            if status < 0:
                raise SeccompUnavailable(f"seccomp_rule_add_array({name}) failed: "
                                         f"{os.strerror(-status)}")

        return add

    def export(self, handle: Any) -> None:
        try:
            status = self.cdll.seccomp_export_bpf(self.context, handle.fileno())
        finally:
            self.cdll.seccomp_release(self.context)
        if status < 0:
            raise SeccompUnavailable(f"seccomp_export_bpf failed: {os.strerror(-status)}")
