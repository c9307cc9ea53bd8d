"""The seccomp filter, built once in the host with pyseccomp and shipped to workers as BPF.

Building in the host keeps libseccomp and its ctypes binding (10 ms of imports) out of the
worker, which only hands the finished program to prctl (about 30 µs).

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

import os
import tempfile
from functools import cache

AF_UNIX = 1
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
    """The BPF program (raw `struct sock_filter` array) for this machine's architecture."""
    try:
        import pyseccomp as sc
    except (ImportError, OSError) as exc:  # the binding or libseccomp.so is missing
        raise SeccompUnavailable(f"pyseccomp is not usable: {exc}") from exc
    flt = sc.SyscallFilter(sc.ALLOW)
    for name in KILLED:
        _add(sc, flt, sc.KILL_PROCESS, name)
    for name in REFUSED_EPERM:
        _add(sc, flt, sc.ERRNO(EPERM), name)
    _add(sc, flt, sc.ERRNO(ENOSYS), "clone3")
    _add(sc, flt, sc.ERRNO(EPERM), "socket", sc.Arg(0, sc.EQ, AF_UNIX))
    _add(sc, flt, sc.KILL_PROCESS, "socket", sc.Arg(0, sc.NE, AF_UNIX))
    _add(sc, flt, sc.ERRNO(EPERM), "prlimit64", sc.Arg(0, sc.NE, 0))
    with tempfile.TemporaryFile() as handle:
        flt.export_bpf(handle)
        handle.flush()
        os.lseek(handle.fileno(), 0, os.SEEK_SET)
        program = handle.read()
    if not program or len(program) % 8:
        raise SeccompUnavailable("libseccomp exported an empty or malformed program")
    return program


def _add(sc: object, flt: object, action: int, name: str, *args: object) -> None:
    resolve = sc.resolve_syscall  # type: ignore[attr-defined]
    arch = sc.system_arch()  # type: ignore[attr-defined]
    if resolve(arch, name) < 0:
        return  # this architecture has no such system call, so nothing can call it
    flt.add_rule(action, name, *args)  # type: ignore[attr-defined]
