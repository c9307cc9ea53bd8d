"""The OS layers a worker applies to itself before it runs any tool code (worker side).

Order: rlimits, namespaces (user + mount with a minimal root + network, then a nested user
namespace without a uid mapping), no_new_privs, Landlock (file system, TCP,
scoping), capabilities dropped, seccomp. Each layer is tried on its own; one that the kernel
refuses is reported inactive with the reason, and the others still apply. The host decides
whether a missing layer is fatal (`--require-layers`).

System calls go through libc with `_ctypes`, the C core of ctypes: Python 3.11 has no
`os.unshare`, and no maintained binding covers Landlock's network rules. The `ctypes` package
itself (which imports os, struct and types) costs the worker 2.5 ms of its 25 ms cold-call
budget; the few C types needed here are declared below instead.
"""

from __future__ import annotations

import _ctypes
import posix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

Report = dict[str, list[object]]  # layer -> [active, detail]

# <sys/resource.h>
RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_CORE, RLIMIT_NPROC, RLIMIT_NOFILE, RLIMIT_AS = 0, 1, 4, 6, 7, 9
RLIM_INFINITY = 2**64 - 1
# <linux/sched.h>
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWNS = 0x00020000
# <sys/mount.h>
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME, MS_STRICTATIME = 1024, 2048, 1 << 21, 1 << 24
MNT_DETACH = 2
# statvfs f_flag bits that a user namespace may not clear on a bind mount (they are locked)
ST_LOCKED_TO_MS = ((8, MS_NOEXEC), (1024, MS_NOATIME), (2048, MS_NODIRATIME),
                   (4096, MS_RELATIME))
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "ppc64": 203,
                  "s390x": 217, "i686": 217, "armv7l": 218, "loongarch64": 41}
WORKDIR = "/sandbox"
NOBODY = 65534  # the uid and gid a worker started by root runs as
# <linux/prctl.h>
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
PR_SET_DUMPABLE = 4
SECCOMP_MODE_FILTER = 2
# <linux/landlock.h>; the three system calls have the same numbers on every architecture.
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_ACCESS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
NET_BIND_TCP = 1
NET_CONNECT_TCP = 2
SCOPE_ABSTRACT_UNIX_SOCKET = 1
SCOPE_SIGNAL = 2
# <linux/capability.h>
LINUX_CAPABILITY_VERSION_3 = 0x20080522

O_PATH = 0o10000000
O_CLOEXEC = 0o2000000
O_DIRECTORY = 0o200000



class c_long(_ctypes._SimpleCData):  # type: ignore[type-arg]
    _type_ = "l"


class c_ulong(_ctypes._SimpleCData):  # type: ignore[type-arg]
    _type_ = "L"


class c_int(_ctypes._SimpleCData):  # type: ignore[type-arg]
    _type_ = "i"


class c_uint32(_ctypes._SimpleCData):  # type: ignore[type-arg]
    _type_ = "I"


class c_uint64(_ctypes._SimpleCData):  # type: ignore[type-arg]
    _type_ = "Q"


class c_ushort(_ctypes._SimpleCData):  # type: ignore[type-arg]
    _type_ = "H"


class c_char(_ctypes._SimpleCData):  # type: ignore[type-arg]
    _type_ = "c"


class _LibcFunction(_ctypes.CFuncPtr):
    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
    _restype_ = c_long


class _Process:
    """The running process's symbols (libc included), as ctypes' `CDLL(None)` sees them."""

    _handle = _ctypes.dlopen(None, 0)  # type: ignore[arg-type]


def _libc_function(name: str, *argtypes: type) -> Any:
    function = _LibcFunction((name, _Process()))  # type: ignore[arg-type]
    if argtypes:
        function.argtypes = argtypes
    return function


get_errno = _ctypes.get_errno
byref = _ctypes.byref
addressof = _ctypes.addressof


class _RLimit(_ctypes.Structure):
    _fields_ = (("cur", c_ulong), ("max", c_ulong))


class _RulesetAttr(_ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", c_uint64),
        ("handled_access_net", c_uint64),
        ("scoped", c_uint64),
    )


class _PathBeneathAttr(_ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", c_uint64), ("parent_fd", c_int))


class _SockFprog(_ctypes.Structure):
    _fields_ = (("len", c_ushort), ("filter", c_ulong))


class _CapHeader(_ctypes.Structure):
    _fields_ = (("version", c_uint32), ("pid", c_int))


class _CapData(_ctypes.Structure):
    _fields_ = (
        ("effective", c_uint32),
        ("permitted", c_uint32),
        ("inheritable", c_uint32),
    )


_syscall = _libc_function("syscall")
_prctl = _libc_function("prctl", c_int, c_ulong, c_ulong, c_ulong, c_ulong)
_setrlimit = _libc_function("setrlimit")
_unshare = _libc_function("unshare")
_capset = _libc_function("capset")
_mount = _libc_function("mount")
_umount2 = _libc_function("umount2")


def _errno_text() -> str:
    code = get_errno()
    return f"errno {code} ({posix.strerror(code)})"


def set_rlimit(resource: int, soft: int, hard: int) -> None:
    limit = _RLimit(soft, hard)
    if _setrlimit(resource, byref(limit)) != 0:
        raise OSError(get_errno(), f"setrlimit({resource}) failed: {_errno_text()}")


def address_space_bytes() -> int:
    """Current virtual memory size, read before lockdown."""
    fd = posix.open("/proc/self/statm", posix.O_RDONLY)
    try:
        pages = int(posix.read(fd, 128).split()[0])
    finally:
        posix.close(fd)
    return pages * posix.sysconf("SC_PAGE_SIZE")


def apply_rlimits(memory_mb: int, cpu_seconds: int, cpu_lifetime: int, open_files: int) -> str:
    headroom = memory_mb * 1024 * 1024
    address_space = address_space_bytes() + headroom
    set_rlimit(RLIMIT_CORE, 0, 0)
    set_rlimit(RLIMIT_FSIZE, 0, 0)
    set_rlimit(RLIMIT_NOFILE, open_files, open_files)
    set_rlimit(RLIMIT_NPROC, 0, 0)
    set_rlimit(RLIMIT_AS, address_space, address_space)
    set_rlimit(RLIMIT_CPU, cpu_seconds, max(cpu_seconds, cpu_lifetime))
    return (f"AS={address_space >> 20} MiB ({memory_mb} MiB headroom), CPU={cpu_seconds}s, "
            f"NOFILE={open_files}, FSIZE=0, CORE=0, NPROC=0")


def apply_namespaces(report: Report, skip: frozenset[str],
                     root: dict[str, list[Any]] | None = None) -> None:
    """A new user namespace (no privileges outside it), a new, empty network namespace and,
    when `root` is given, a new mount namespace whose root is a minimal tmpfs tree."""
    if root is not None and "mountns" not in skip and _apply_mount_namespace(report, skip, root):
        return
    if "mountns" not in report:
        report["mountns"] = [False, "disabled" if "mountns" in skip else "no root plan"]
    want_user = "userns" not in skip
    want_net = "netns" not in skip
    flags = (CLONE_NEWUSER if want_user else 0) | (CLONE_NEWNET | CLONE_NEWIPC if want_net else 0)
    if flags and _unshare(flags) == 0:
        if want_user:
            report["userns"] = [True, "new user namespace, no uid mapping"]
        if want_net:
            report["netns"] = [True, "new network namespace with no interfaces up"]
        return
    why = _errno_text() if flags else "disabled"
    if want_user:
        report["userns"] = [False, f"unshare(CLONE_NEWUSER) failed: {why}"]
    if want_net and want_user and _unshare(CLONE_NEWNET | CLONE_NEWIPC) == 0:
        report["netns"] = [True, "new network namespace (without a user namespace)"]
    elif want_net:
        report["netns"] = [False, f"unshare(CLONE_NEWNET) failed: {_errno_text()}"]


def _apply_mount_namespace(report: Report, skip: frozenset[str],
                           root: dict[str, list[Any]]) -> bool:
    """A new mount namespace whose root is a minimal tmpfs tree, then a nested user namespace
    without any uid mapping (with the network namespace).

    Started by root: unshare(CLONE_NEWNS) as root (the mount namespace then belongs to the
    host's user namespace, so nothing in the worker can ever change its mounts), build the
    root, pivot into it, and leave root for uid 65534: the kernel exempts uid 0 from
    RLIMIT_NPROC whatever its capabilities (a root worker without seccomp could fork), and a
    non-root uid gets no DAC override on anything. Otherwise: unshare(user, mount) with the
    worker's own uid mapped (a tmpfs refuses to create directories in a user namespace
    without a mapping). Returns False (nothing changed) when the namespace cannot be made;
    later failures leave `mountns` inactive but keep the namespaces already made."""
    want_user = "userns" not in skip
    want_net = "netns" not in skip
    as_root = posix.geteuid() == 0 and _unshare(CLONE_NEWNS) == 0
    if not as_root and _unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
        report["mountns"] = [False, f"unshare(CLONE_NEWNS) failed: {_errno_text()}"]
        return False
    try:
        uid, gid = (NOBODY, NOBODY) if as_root else (posix.getuid(), posix.getgid())
        if not as_root:
            _write_file("/proc/self/setgroups", b"deny")
            _write_file("/proc/self/uid_map", f"{uid} {uid} 1".encode())
            _write_file("/proc/self/gid_map", f"{gid} {gid} 1".encode())
        count = _build_root(root, uid, gid)
        if as_root:
            # Made by root, the network namespace belongs to the host's user namespace: the
            # worker holds no capability over it (it cannot even bring loopback up).
            if want_net:
                net_made = _unshare(CLONE_NEWNET | CLONE_NEWIPC) == 0
                report["netns"] = ([True, "new network namespace with no interfaces up"]
                                   if net_made else
                                   [False, f"unshare(CLONE_NEWNET) failed: {_errno_text()}"])
            posix.setgroups([])
            posix.setresgid(gid, gid, gid)
            posix.setresuid(uid, uid, uid)
        report["mountns"] = [True, f"new mount namespace: tmpfs root, {count} read-only "
                             f"bind(s), empty {WORKDIR}; no /tmp, /run, /home, /proc; "
                             f"uid {uid}" + (" (left root)" if as_root else "")]
    except OSError as exc:
        report["mountns"] = [False, f"minimal root failed: {exc}"]
    # Without root, the network namespace is made with the nested user namespace: made
    # together with the mount namespace it cost 4-5 ms more here (measured), after it 0.6 ms.
    net = CLONE_NEWNET | CLONE_NEWIPC if want_net and "netns" not in report else 0
    if not want_user:
        report["userns"] = [False, "disabled"]
        ok = net == 0 or _unshare(net) == 0
    else:
        ok = _unshare(CLONE_NEWUSER | net) == 0
        report["userns"] = ([True, "nested user namespace, no uid mapping"] if ok
                            else [False, f"unshare(CLONE_NEWUSER) failed: {_errno_text()}"])
    if not want_net:
        report["netns"] = [False, "disabled"]
    elif "netns" not in report:
        report["netns"] = ([True, "new network namespace with no interfaces up"] if ok
                           else [False, f"unshare(CLONE_NEWNET) failed: {_errno_text()}"])
    return True


def _write_file(path: str, data: bytes) -> None:
    fd = posix.open(path, posix.O_WRONLY)
    try:
        posix.write(fd, data)
    finally:
        posix.close(fd)


def _check(result: int, what: str) -> None:
    if result != 0:
        code = get_errno()
        raise OSError(code, f"{what}: {_errno_text()}")


def _makedirs(path: str) -> None:
    current = ""
    for part in path.strip("/").split("/"):
        current += "/" + part
        try:  # noqa: SIM105 (contextlib costs the worker start-up time)
            posix.mkdir(current, 0o755)
        except FileExistsError:
            pass


def _build_root(root: dict[str, list[Any]], uid: int, gid: int) -> int:
    """Mount a tmpfs on the (empty) working directory, bind what the interpreter needs into
    it read-only, make the tmpfs read-only too, give it an empty working directory owned by
    `uid`/`gid`, and pivot_root into it, dropping the old root."""
    pivot_root = SYS_PIVOT_ROOT.get(posix.uname().machine)
    if pivot_root is None:
        raise OSError(0, f"no pivot_root number known for {posix.uname().machine}")
    new_root = posix.getcwd()
    _check(_mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "making mounts private")
    _check(_mount(b"tmpfs", new_root.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                  b"size=64k,nr_inodes=512,mode=0755"), "mounting the tmpfs root")
    count = 0
    for source in root["dirs"] + root["files"]:
        target = new_root + source
        if source in root["dirs"]:
            _makedirs(target)
        else:
            _makedirs(target.rsplit("/", 1)[0])
            posix.close(posix.open(target, posix.O_WRONLY | posix.O_CREAT, 0o644))
        _check(_mount(source.encode(), target.encode(), None, MS_BIND | MS_REC, None),
               f"binding {source}")
        flags = posix.statvfs(target).f_flag
        locked = 0
        for st_bit, ms_bit in ST_LOCKED_TO_MS:
            if flags & st_bit:
                locked |= ms_bit
        _check(_mount(None, target.encode(), None,
                      MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | locked, None),
               f"making {source} read-only")
        count += 1
    for link, destination in root["links"]:
        _makedirs(new_root + link.rsplit("/", 1)[0])
        posix.symlink(destination, new_root + link)
    workdir = new_root + WORKDIR
    _makedirs(workdir)
    _check(_mount(b"tmpfs", workdir.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                  f"size=64k,nr_inodes=64,mode=0700,uid={uid},gid={gid}".encode()),
           "mounting the working directory")
    _check(_mount(None, new_root.encode(), None,
                  MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None),
           "making the root read-only")
    posix.chdir(new_root)
    _check(_syscall(pivot_root, b".", b"."), "pivot_root")
    _check(_umount2(b".", MNT_DETACH), "detaching the old root")
    posix.chdir(WORKDIR)
    return count


def set_no_new_privs() -> None:
    if _prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(get_errno(), f"PR_SET_NO_NEW_PRIVS failed: {_errno_text()}")
    _prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def landlock_abi() -> int:
    abi = _syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    return int(abi) if abi > 0 else 0


def apply_landlock(read_paths: Iterable[str], report: Report, skip: frozenset[str]) -> None:
    """Read-only access to `read_paths`, no other file access, no TCP, scoped signals."""
    abi = landlock_abi()
    if abi == 0:
        why = f"Landlock is not available: {_errno_text()}"
        for layer in ("landlock_fs", "landlock_net", "landlock_scope"):
            report[layer] = [False, why]
        return
    fs_bits = FS_ACCESS_BY_ABI[max(k for k in FS_ACCESS_BY_ABI if k <= abi)]
    use_fs = "landlock_fs" not in skip
    use_net = abi >= 4 and "landlock_net" not in skip
    use_scope = abi >= 6 and "landlock_scope" not in skip
    attr = _RulesetAttr(
        fs_bits if use_fs else 0,
        NET_BIND_TCP | NET_CONNECT_TCP if use_net else 0,
        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if use_scope else 0,
    )
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    if not (use_fs or use_net or use_scope):
        for layer in ("landlock_fs", "landlock_net", "landlock_scope"):
            report[layer] = [False, "disabled"]
        return
    ruleset = int(_syscall(SYS_LANDLOCK_CREATE_RULESET, byref(attr), size, 0))
    if ruleset < 0:
        why = f"landlock_create_ruleset failed: {_errno_text()}"
        for layer in ("landlock_fs", "landlock_net", "landlock_scope"):
            report[layer] = [False, why]
        return
    granted = 0
    try:
        if use_fs:
            granted = _add_read_rules(ruleset, read_paths)
        if _syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            why = f"landlock_restrict_self failed: {_errno_text()}"
            for layer in ("landlock_fs", "landlock_net", "landlock_scope"):
                report[layer] = [False, why]
            return
    finally:
        posix.close(ruleset)
    report["landlock_fs"] = (
        [True, f"ABI {abi}: read-only access to {granted} path(s), nothing else"]
        if use_fs else [False, "disabled"]
    )
    report["landlock_net"] = (
        [True, f"ABI {abi}: TCP bind and connect denied"] if use_net
        else [False, "disabled" if abi >= 4 else f"needs Landlock ABI 4, kernel has {abi}"]
    )
    report["landlock_scope"] = (
        [True, f"ABI {abi}: signals and abstract unix sockets scoped to the sandbox"]
        if use_scope
        else [False, "disabled" if abi >= 6 else f"needs Landlock ABI 6, kernel has {abi}"]
    )


def _add_read_rules(ruleset: int, read_paths: Iterable[str]) -> int:
    granted = 0
    for path in read_paths:
        try:
            fd = posix.open(path, O_PATH | O_CLOEXEC)
        except OSError:
            continue  # a path that does not exist needs no rule
        try:
            is_dir = (posix.fstat(fd).st_mode & 0o170000) == 0o040000
            access = FS_READ_FILE | FS_READ_DIR if is_dir else FS_READ_FILE
            rule = _PathBeneathAttr(access, fd)
            if _syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH,
                        byref(rule), 0) == 0:
                granted += 1
        finally:
            posix.close(fd)
    return granted


def drop_capabilities() -> None:
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if _capset(byref(header), data) != 0:
        raise OSError(get_errno(), f"capset failed: {_errno_text()}")


def load_seccomp(program: bytes) -> None:
    buffer = (c_char * len(program)).from_buffer_copy(program)
    fprog = _SockFprog(len(program) // 8, addressof(buffer))
    if _prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, addressof(fprog), 0, 0) != 0:
        raise OSError(get_errno(), f"PR_SET_SECCOMP failed: {_errno_text()}")


def lock_down(
    *,
    memory_mb: int,
    cpu_seconds: int,
    cpu_lifetime: int,
    open_files: int,
    read_paths: Iterable[str],
    root: dict[str, list[Any]] | None = None,
    seccomp_program: bytes | None,
    seccomp_missing_reason: str,
    skip: frozenset[str],
) -> Report:
    """Apply every layer not in `skip`; return what is active and why anything is not."""
    report: Report = {}
    if "rlimits" in skip:
        report["rlimits"] = [False, "disabled"]
    else:
        try:
            report["rlimits"] = [True, apply_rlimits(memory_mb, cpu_seconds, cpu_lifetime,
                                                    open_files)]
        except OSError as exc:
            report["rlimits"] = [False, str(exc)]
    apply_namespaces(report, skip, root)
    try:
        set_no_new_privs()
        report["no_new_privs"] = [True, "no_new_privs set, not dumpable"]
    except OSError as exc:
        report["no_new_privs"] = [False, str(exc)]
    apply_landlock(read_paths, report, skip)
    if "capabilities" in skip:
        report["capabilities"] = [False, "disabled"]
    else:
        try:
            drop_capabilities()
            report["capabilities"] = [True, "all capabilities dropped"]
        except OSError as exc:
            report["capabilities"] = [False, str(exc)]
    if "seccomp" in skip:
        report["seccomp"] = [False, "disabled"]
    elif seccomp_program is None:
        report["seccomp"] = [False, seccomp_missing_reason]
    else:
        try:
            load_seccomp(seccomp_program)
            report["seccomp"] = [True, f"filter of {len(seccomp_program) // 8} instructions: "
                                 "kill on fork, exec, sockets; EPERM on signals"]
        except OSError as exc:
            report["seccomp"] = [False, str(exc)]
    return report
