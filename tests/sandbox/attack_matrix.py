"""Runtime attack tools and the harness that runs them through `run_unchecked` (no gate) with
chosen layers switched off; shared by the matrix tests and `bench`-style reporting.

Each attack is a complete tool file written as an attacker with the Python layer off would
write it (real `os`, `socket`, `open`); the harness provides the targets (a planted file, a
host process with a marked environment, TCP/abstract/pathname Unix listeners, a directory
outside the working directory) and decides from the host side whether the attack succeeded:
a listener that accepted, a file that appeared, a marker that came back, an exec'd program's
exit status.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dyntools.sandbox.limits import LAYERS, SandboxLimits
from dyntools.sandbox.minimum import MINIMUM_SANDBOX
from dyntools.sandbox.testing import PYTHON_LAYERS, run_unchecked

HEADER = '''"""An attack used by the layer matrix tests."""
import os
import socket
import sys

NAME = "attack"
DESCRIPTION = "An attack used by the layer matrix tests."
PARAMS = {"type": "object"}


'''

EXEC_STATUS = 42
ATTACKS: dict[str, str] = {
    "read_planted_file": '''
        def run(params):
            with open(params["planted"]) as handle:
                return {"data": handle.read()}
        ''',
    "read_host_env": '''
        def run(params):
            found = [dict(os.environ).get("DYNTOOLS_HOST_MARKER", "")]
            for pid in (params["victim"], os.getppid(), 1):
                try:
                    with open(f"/proc/{pid}/environ", "rb") as handle:
                        found.append(handle.read().decode("latin-1"))
                except OSError:
                    pass
            return {"data": " ".join(found)}
        ''',
    "tcp_connect": '''
        def run(params):
            conn = socket.create_connection(("127.0.0.1", params["port"]), timeout=2)
            conn.sendall(b"escaped")
            return {"data": "connected"}
        ''',
    "abstract_unix_connect": '''
        def run(params):
            conn = socket.socket(socket.AF_UNIX)
            conn.settimeout(2)
            conn.connect("\\0" + params["abstract"])
            conn.sendall(b"escaped")
            return {"data": "connected"}
        ''',
    "pathname_unix_connect": '''
        def run(params):
            conn = socket.socket(socket.AF_UNIX)
            conn.settimeout(2)
            conn.connect(params["pathname"])
            conn.sendall(b"escaped")
            return {"data": "connected"}
        ''',
    "write_outside_workdir": '''
        def run(params):
            with open(params["outside"], "w") as handle:
                handle.write("escaped")
            return {"data": "written"}
        ''',
    "fork": '''
        def run(params):
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            return {"data": "forked"}
        ''',
    "exec": f'''
        def run(params):
            os.execv("/bin/sh", ["sh", "-c", "exit {EXEC_STATUS}"])
        ''',
}

# Layer combinations: the name, and the layers switched off.
ALL_LAYERS = frozenset(LAYERS)


def minimum_row(needed: frozenset[str]) -> str:
    """The table's row for one set of the default minimum."""
    return "default minimum: " + " + ".join(f"`{name}`" for name in sorted(needed)) + " alone"

OS_LAYERS = ALL_LAYERS - PYTHON_LAYERS - {"no_new_privs"}  # no_new_privs is always set
COMBINATIONS: dict[str, frozenset[str]] = {
    "every OS layer (Python layer off)": PYTHON_LAYERS,
    "every OS layer but seccomp (Python and seccomp off)": PYTHON_LAYERS | {"seccomp"},
    **{f"{layer} alone": ALL_LAYERS - {layer} for layer in sorted(OS_LAYERS)},
    # each set of the sandbox's default minimum on its own (dyntools/sandbox/minimum.py)
    **{minimum_row(needed): ALL_LAYERS - needed for needed in MINIMUM_SANDBOX},
    "Python layer alone (restricted + audit_hook)": frozenset(OS_LAYERS),
    "nothing (control)": ALL_LAYERS,
}


@dataclass
class Targets:
    tmp: Path
    planted: Path
    secret: str
    victim: subprocess.Popen[bytes]
    marker: str
    tcp: socket.socket
    abstract_name: str
    abstract: socket.socket
    pathname: Path
    unix: socket.socket
    outside: Path
    accepted: dict[str, bool] = field(default_factory=dict)

    def params(self) -> dict[str, Any]:
        return {
            "planted": str(self.planted),
            "victim": self.victim.pid,
            "port": self.tcp.getsockname()[1],
            "abstract": self.abstract_name,
            "pathname": str(self.pathname),
            "outside": str(self.outside),
        }


def _listener(family: int, address: Any) -> socket.socket:
    listener = socket.socket(family)
    listener.bind(address)
    listener.listen(4)
    listener.setblocking(False)
    return listener


def _accepted(listener: socket.socket) -> bool:
    try:
        conn, _ = listener.accept()
    except (BlockingIOError, OSError):
        return False
    conn.close()
    return True


@contextmanager
def targets(tmp: Path) -> Iterator[Targets]:
    tmp.mkdir(parents=True, exist_ok=True)
    os.chmod(tmp, 0o777)
    secret = "planted-" + secrets.token_hex(8)
    planted = tmp / "planted.txt"
    planted.write_text(secret)
    marker = "marker-" + secrets.token_hex(8)
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                              env={"DYNTOOLS_HOST_MARKER": marker})
    abstract_name = "dyntools-test-" + secrets.token_hex(8)
    pathname = tmp / "host.sock"
    made = Targets(
        tmp=tmp, planted=planted, secret=secret, victim=victim, marker=marker,
        tcp=_listener(socket.AF_INET, ("127.0.0.1", 0)),
        abstract_name=abstract_name,
        abstract=_listener(socket.AF_UNIX, "\0" + abstract_name),
        pathname=pathname, unix=_listener(socket.AF_UNIX, str(pathname)),
        outside=tmp / "outside.txt",
    )
    os.chmod(pathname, 0o777)
    try:
        yield made
    finally:
        victim.kill()
        victim.wait()
        for listener in (made.tcp, made.abstract, made.unix):
            listener.close()


def succeeded(name: str, outcome: dict[str, Any], made: Targets) -> bool:
    """Did the attack get what it wanted? Judged on the host side, not by the tool's word."""
    data = str(outcome.get("result") or "")
    if name == "read_planted_file":
        return made.secret in data
    if name == "read_host_env":
        return made.marker in data or "PATH=" in data
    if name == "tcp_connect":
        return _accepted(made.tcp) or "connected" in data
    if name == "abstract_unix_connect":
        return _accepted(made.abstract) or "connected" in data
    if name == "pathname_unix_connect":
        return _accepted(made.unix) or "connected" in data
    if name == "write_outside_workdir":
        exists = made.outside.exists()
        if exists:
            made.outside.unlink()
        return exists
    if name == "fork":
        return "forked" in data
    if name == "exec":
        return f"status {EXEC_STATUS}" in str(outcome.get("error") or "")
    raise ValueError(name)


def write_attack(tmp: Path, name: str) -> Path:
    path = tmp / f"attack_{name}.py"
    path.write_text(HEADER + textwrap.dedent(ATTACKS[name]))
    return path


def run_matrix(tmp: Path, disabled: frozenset[str],
               attacks: Callable[[], list[str]] = lambda: list(ATTACKS)
               ) -> dict[str, tuple[bool, dict[str, Any]]]:
    """{attack: (succeeded, outcome)} for one layer combination."""
    results: dict[str, tuple[bool, dict[str, Any]]] = {}
    with targets(tmp / "targets") as made:
        for name in attacks():
            outcome = run_unchecked(write_attack(tmp, name), made.params(), disable=disabled,
                                    limits=SandboxLimits(timeout_s=5.0))
            results[name] = (succeeded(name, outcome, made), outcome)
    return results


if __name__ == "__main__":  # print the table for docs/sandbox.md
    import tempfile

    print("| layers on (gate bypassed) | stopped | " + " | ".join(ATTACKS) + " |")
    print("| --- | --- |" + " --- |" * len(ATTACKS))
    for label, off in COMBINATIONS.items():
        with tempfile.TemporaryDirectory() as scratch:
            matrix = run_matrix(Path(scratch), off)
        stopped = sum(1 for ok, _ in matrix.values() if not ok)
        cells = " | ".join("passed" if matrix[a][0] else "stopped" for a in ATTACKS)
        print(f"| {label} | {stopped}/{len(ATTACKS)} | {cells} |", flush=True)
