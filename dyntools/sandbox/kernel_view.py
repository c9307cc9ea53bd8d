"""What the kernel shows about a worker from outside (host side).

A worker reports its layers in its `hello` frame, sent after lockdown and before any tool code
runs; the host then checks every layer the kernel makes visible in `/proc/<pid>` before it lets
the worker run the tool's module body:

- `seccomp`: `Seccomp: 2` (filter mode) in `/proc/<pid>/status`;
- `no_new_privs`: `NoNewPrivs: 1`;
- `capabilities`: `CapEff` and `CapPrm` are zero;
- `userns`: `/proc/<pid>/ns/user` is not the host's, and `/proc/<pid>/uid_map` is empty (no
  uid mapping);
- `netns`: `/proc/<pid>/ns/net` is not the host's;
- `mountns`: `/proc/<pid>/ns/mnt` is not the host's and the worker's root mount is a tmpfs
  (`/proc/<pid>/mountinfo`);
- `rlimits`: `/proc/<pid>/limits` shows file size 0, processes 0, core 0 and finite address
  space and CPU time.

A layer counts as active only when the worker reported it active *and* the kernel agrees.
Landlock and the in-process layers (`restricted`, `audit_hook`) leave no trace in `/proc`: for
them the host relies on the report, which was written before any tool code could run.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

VERIFIED_BY_KERNEL = frozenset({
    "seccomp", "no_new_privs", "capabilities", "userns", "netns", "mountns", "rlimits",
})


def _read(path: str) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = [os.read(fd, 65536)]
        while chunks[-1]:
            chunks.append(os.read(fd, 65536))
    finally:
        os.close(fd)
    return b"".join(chunks).decode("ascii", "replace")


_STATUS_KEYS = ("Seccomp", "Seccomp_filters", "NoNewPrivs", "CapEff", "CapPrm")


def _status_fields(pid: int) -> dict[str, str]:
    fields = {}
    text = _read(f"/proc/{pid}/status")
    for key in _STATUS_KEYS:
        start = text.find("\n" + key + ":")
        if start >= 0:
            end = text.find("\n", start + 1)
            fields[key] = text[start + len(key) + 2:end if end >= 0 else None].strip()
    return fields


@cache
def _host_seccomp_filters() -> int:
    try:
        value = _status_fields(os.getpid()).get("Seccomp_filters", "0")
    except OSError:
        return 0
    return int(value) if value.isdigit() else 0


@cache
def _host_namespace(kind: str) -> str:
    return os.readlink(f"/proc/self/ns/{kind}")


def _namespace_differs(pid: int, kind: str) -> tuple[bool, str]:
    theirs = os.readlink(f"/proc/{pid}/ns/{kind}")
    ours = _host_namespace(kind)
    if theirs == ours:
        return False, f"/proc/{pid}/ns/{kind} is the host's ({ours})"
    return True, f"/proc/{pid}/ns/{kind} = {theirs}, host {ours}"


def _root_mount(pid: int) -> tuple[bool, str]:
    """True when the worker's `/` is a tmpfs (the minimal root)."""
    for line in _read(f"/proc/{pid}/mountinfo").splitlines():
        fields = line.split()
        if len(fields) < 5 or fields[4] != "/":
            continue
        try:
            fstype = fields[fields.index("-") + 1]
        except (ValueError, IndexError):
            continue
        if fstype == "tmpfs":
            return True, "root is a tmpfs"
        return False, f"root is a {fstype} mount"
    return False, "no root mount visible"


def _limits(pid: int) -> tuple[bool, str]:
    rows: dict[str, list[str]] = {}
    for line in _read(f"/proc/{pid}/limits").splitlines()[1:]:
        # "Max file size             0                    0                    bytes"
        name = line[:26].strip()
        rows[name] = line[26:].split()
    wanted_zero = ("Max file size", "Max processes", "Max core file size")
    bad = [name for name in wanted_zero if rows.get(name, ["?"])[:1] != ["0"]]
    bad += [name for name in ("Max address space", "Max cpu time")
            if rows.get(name, ["unlimited"])[:1] == ["unlimited"]]
    if bad:
        return False, "not limited: " + ", ".join(bad)
    return True, "file size, processes, core 0; address space and CPU time finite"


def kernel_checks(pid: int) -> dict[str, tuple[bool, str]]:
    """For each layer the kernel makes visible: (does /proc show it, what it shows)."""
    checks: dict[str, tuple[bool, str]] = {}
    try:
        status = _status_fields(pid)
    except OSError as exc:
        status = {}
        missing = f"cannot read /proc/{pid}/status: {exc.strerror}"
        for layer in ("seccomp", "no_new_privs", "capabilities"):
            checks[layer] = (False, missing)
    if status:
        seccomp = status.get("Seccomp", "?")
        filters = status.get("Seccomp_filters", "?")
        host_filters = _host_seccomp_filters()
        # A host that runs under seccomp itself (a container) passes its filters on: the
        # worker must hold more filters than the host.
        checks["seccomp"] = (seccomp == "2" and filters.isdigit() and int(filters) > host_filters,
                             f"Seccomp: {seccomp}, Seccomp_filters: {filters} (host "
                             f"{host_filters})")
        nnp = status.get("NoNewPrivs", "?")
        checks["no_new_privs"] = (nnp == "1", f"NoNewPrivs: {nnp}")
        eff, prm = status.get("CapEff", "?"), status.get("CapPrm", "?")
        checks["capabilities"] = (_is_zero(eff) and _is_zero(prm),
                                  f"CapEff: {eff}, CapPrm: {prm}")
    for layer, kind in (("userns", "user"), ("netns", "net"), ("mountns", "mnt")):
        try:
            checks[layer] = _namespace_differs(pid, kind)
        except OSError as exc:
            checks[layer] = (False, f"cannot read /proc/{pid}/ns/{kind}: {exc.strerror}")
    if checks["userns"][0]:
        try:
            mapping = _read(f"/proc/{pid}/uid_map").strip()
        except OSError as exc:
            checks["userns"] = (False, f"cannot read /proc/{pid}/uid_map: {exc.strerror}")
        else:
            if mapping:
                checks["userns"] = (False, f"uid_map is not empty: {mapping!r}")
            else:
                checks["userns"] = (True, checks["userns"][1] + ", uid_map empty")
    if checks["mountns"][0]:
        try:
            root_ok, root_text = _root_mount(pid)
        except OSError as exc:
            root_ok, root_text = False, f"cannot read /proc/{pid}/mountinfo: {exc.strerror}"
        checks["mountns"] = (root_ok, checks["mountns"][1] + ", " + root_text)
    try:
        checks["rlimits"] = _limits(pid)
    except OSError as exc:
        checks["rlimits"] = (False, f"cannot read /proc/{pid}/limits: {exc.strerror}")
    return checks


def _is_zero(hex_text: str) -> bool:
    try:
        return int(hex_text, 16) == 0
    except ValueError:
        return False


def verified_layers(pid: int, reported: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The host's view: `{layer: {"active", "detail", "verified"}}`, where a layer the kernel
    can show is active only if the worker reported it active and `/proc` agrees.

    `verified` is `"kernel"` (checked in /proc) or `"report"` (not visible from outside; the
    worker's report, written before any tool code ran).
    """
    checks = kernel_checks(pid)
    view: dict[str, dict[str, Any]] = {}
    for name, value in reported.items():
        try:
            active, detail = bool(value[0]), str(value[1])
        except (TypeError, IndexError, KeyError):
            active, detail = False, "malformed report"
        if name not in checks:
            view[name] = {"active": active, "detail": detail, "verified": "report"}
            continue
        seen, shown = checks[name]
        if active and not seen:
            view[name] = {"active": False, "verified": "kernel",
                          "detail": f"reported active, but the kernel disagrees: {shown}"}
        else:
            view[name] = {"active": active, "verified": "kernel",
                          "detail": f"{detail} [kernel: {shown}]" if active else detail}
    return view
