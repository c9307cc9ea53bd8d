"""Each OS layer stands on its own: the gate is bypassed (these files never pass it) and the
RestrictedPython guards are switched off with the test-only `_skip_layers` argument, which
neither tool code nor the CLI can reach. "all" keeps every OS layer on; "<layer>" keeps only
that one."""

from __future__ import annotations

import errno
import socket
from pathlib import Path

import pytest

from dyntools.errors import SandboxError, SandboxViolation, ToolRuntimeError
from dyntools.sandbox import SandboxLimits, run_once

from .conftest import OS_LAYERS, only

ALL_OS = frozenset({"restricted", "audit_hook"})  # skip only the in-process layers


def attempt(tool, policy, body: str, skip: frozenset[str], imports: str = "") -> dict:
    """Run the attack; a refusal is either a typed sandbox error or an OSError the tool saw."""
    path = tool(body, imports=imports)
    try:
        return run_once(path, {}, policy=policy, limits=SandboxLimits(timeout_s=5.0),
                        _skip_layers=skip, allow_weaker_sandbox=True)
    except SandboxError as exc:
        return {"sandbox_error": exc.reason, "message": exc.message}


@pytest.mark.parametrize("skip", [ALL_OS, only("seccomp"), only("audit_hook")],
                         ids=["all", "seccomp", "audit_hook"])
def test_fork_is_refused(tool, policy, skip):
    # The child leaves at once: without a layer, one answer comes back, the parent's.
    outcome = attempt(tool, policy, '''
        def run(params):
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            return {"forked": pid}
        ''', skip, imports="import os")
    assert outcome.get("sandbox_error") == "sandbox_violation", outcome


@pytest.mark.parametrize("skip", [ALL_OS, only("seccomp"), only("landlock_fs")],
                         ids=["all", "seccomp", "landlock_fs"])
def test_exec_is_refused(tool, policy, skip):
    outcome = attempt(tool, policy, '''
        def run(params):
            try:
                os.execv("/bin/true", ["true"])
            except OSError as exc:
                return {"refused": exc.errno}
            return {"ran": True}
        ''', skip, imports="import os")
    assert "refused" in outcome or outcome.get("sandbox_error") == "sandbox_violation", outcome


@pytest.mark.parametrize(
    "skip",
    [ALL_OS, only("seccomp"), only("netns"), only("landlock_net"), only("audit_hook")],
    ids=["all", "seccomp", "netns", "landlock_net", "audit_hook"],
)
def test_socket_to_localhost_is_refused(tool, policy, skip):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    try:
        outcome = attempt(tool, policy, f'''
            def run(params):
                conn = socket.socket()
                conn.settimeout(1.0)
                try:
                    conn.connect(("127.0.0.1", {port}))
                except OSError as exc:
                    return {{"refused": exc.errno}}
                return {{"connected": True}}
            ''', skip, imports="import socket")
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        listener.close()
    assert "refused" in outcome or outcome.get("sandbox_error") == "sandbox_violation", outcome


WRITE_OUTSIDE = '''
    def run(params):
        try:
            with open({target!r}, "w") as handle:
                handle.write("escaped")
        except OSError as exc:
            return {{"refused": exc.errno}}
        return {{"wrote": True}}
    '''


@pytest.mark.parametrize("skip", [ALL_OS, only("landlock_fs"), only("audit_hook")],
                         ids=["all", "landlock_fs", "audit_hook"])
def test_write_outside_the_working_directory_is_refused(tool, policy, tmp_path, skip):
    target = tmp_path / "written.txt"
    outcome = attempt(tool, policy, WRITE_OUTSIDE.format(target=str(target)), skip)
    assert "refused" in outcome or outcome.get("sandbox_error") == "sandbox_violation", outcome
    assert not target.exists()  # not even created empty


def test_rlimits_alone_let_no_byte_be_written_outside_the_working_directory(tool, policy,
                                                                            tmp_path):
    """RLIMIT_FSIZE=0 stops bytes, not paths: alone, it lets open() create the file outside
    (the layer matrix counts that as passed) but never lets a byte into it."""
    target = tmp_path / "written.txt"
    outcome = attempt(tool, policy, WRITE_OUTSIDE.format(target=str(target)), only("rlimits"))
    assert outcome == {"refused": errno.EFBIG}, outcome
    assert target.read_bytes() == b""


@pytest.mark.parametrize("skip", [ALL_OS, only("landlock_fs"), only("mountns")],
                         ids=["all", "landlock_fs", "mountns"])
def test_reading_a_planted_file_is_refused(tool, policy, tmp_path: Path, skip):
    secret = tmp_path / "planted" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("s3cr3t")
    outcome = attempt(tool, policy, f'''
        def run(params):
            try:
                with open({str(secret)!r}) as handle:
                    return {{"read": handle.read()}}
            except OSError as exc:
                return {{"refused": exc.errno}}
        ''', skip)
    assert "refused" in outcome, outcome
    assert "s3cr3t" not in str(outcome)


@pytest.mark.parametrize("skip", [ALL_OS, only("landlock_scope")], ids=["all", "landlock_scope"])
def test_signals_to_other_processes_are_refused(tool, policy, skip):
    import subprocess
    import sys

    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        outcome = attempt(tool, policy, f'''
            def run(params):
                try:
                    os.kill({victim.pid}, signal.SIGTERM)
                except OSError as exc:
                    return {{"refused": exc.errno}}
                return {{"sent": True}}
            ''', skip, imports="import os\nimport signal")
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()
    assert "refused" in outcome, outcome


@pytest.mark.layer("restricted")
def test_restricted_python_alone_refuses_imports_and_builtins(tool, policy):
    with pytest.raises(SandboxViolation):
        run_once(tool('''
            def run(params):
                return {"cwd": os.getcwd()}
            ''', imports="import os"), {}, policy=policy, _skip_layers=OS_LAYERS,
                     allow_weaker_sandbox=True)
    with pytest.raises(ToolRuntimeError, match="NameError"):
        run_once(tool('''
            def run(params):
                return {"data": open("/etc/hostname").read()}
            '''), {}, policy=policy, _skip_layers=OS_LAYERS,
                     allow_weaker_sandbox=True)


def test_every_layer_is_reported_active_here():
    """This machine kind supports every layer (DESIGN.md §4); a regression shows up here."""
    from dyntools.sandbox import probe_layers

    inactive = {name: e["detail"] for name, e in probe_layers().items() if not e["active"]}
    assert not inactive


def test_controls_without_any_layer_the_attacks_work(tool, policy, tmp_path):
    """Shows the tests above test something: with every layer off the same code succeeds."""
    nothing = OS_LAYERS | {"restricted", "audit_hook"}
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cr3t")
    assert attempt(tool, policy, f'''
        def run(params):
            with open({str(secret)!r}) as handle:
                return {{"read": handle.read()}}
        ''', nothing) == {"read": "s3cr3t"}
    target = tmp_path / "written.txt"
    assert attempt(tool, policy, f'''
        def run(params):
            with open({str(target)!r}, "w") as handle:
                handle.write("escaped")
            return {{"wrote": True}}
        ''', nothing) == {"wrote": True}
    assert target.read_text() == "escaped"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        assert attempt(tool, policy, f'''
            def run(params):
                conn = socket.socket()
                conn.connect(("127.0.0.1", {port}))
                return {{"connected": True}}
            ''', nothing, imports="import socket") == {"connected": True}
    finally:
        listener.close()


@pytest.mark.parametrize("skip", [ALL_OS, only("seccomp")], ids=["all", "seccomp"])
def test_subprocess_is_refused(tool, policy, skip, tmp_path):
    marker = tmp_path / "ran"
    outcome = attempt(tool, policy, f'''
        def run(params):
            try:
                subprocess.run(["/bin/touch", {str(marker)!r}], check=False)
            except OSError as exc:
                return {{"refused": exc.errno}}
            return {{"ran": True}}
        ''', skip, imports="import subprocess")
    assert "refused" in outcome or outcome.get("sandbox_error") == "sandbox_violation", outcome
    assert not marker.exists()


def test_writes_to_fds_1_and_2_never_reach_the_protocol(tool, policy):
    outcome = attempt(tool, policy, '''
        def run(params):
            os.write(1, b"\\x00\\x00\\x00\\x05junk!")
            os.write(2, b"\\x00\\x00\\x00\\x05junk!")
            sys.stdout.write("more junk")
            sys.stdout.flush()
            return {"fine": True}
        ''', OS_LAYERS | {"restricted", "audit_hook"}, imports="import os\nimport sys")
    assert outcome == {"fine": True}


@pytest.mark.parametrize("skip", [ALL_OS, only("mountns"), only("seccomp")],
                         ids=["all", "mountns", "seccomp"])
def test_pathname_unix_socket_to_the_host_is_refused(tool, policy, tmp_path, skip):
    """Finding 3: Landlock (ABI 7) does not cover connect(2) to a socket file and a network
    namespace does not isolate them; the minimal root has no host socket file to name."""
    address = str(tmp_path / "host.sock")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(address)
    listener.listen(1)
    listener.settimeout(0.2)
    try:
        outcome = attempt(tool, policy, f'''
            def run(params):
                try:
                    conn = socket.socket(socket.AF_UNIX)
                    conn.connect({address!r})
                    conn.sendall(b"escaped")
                except OSError as exc:
                    return {{"refused": exc.errno}}
                return {{"connected": True}}
            ''', skip, imports="import socket")
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        listener.close()
    assert "refused" in outcome or outcome.get("sandbox_error") == "sandbox_violation", outcome


def test_the_minimal_root_holds_only_what_the_interpreter_needs(tool, policy):
    outcome = attempt(tool, policy, '''
        def run(params):
            seen = {}
            for path in ("/tmp", "/run", "/home", "/proc", "/dev", "/etc/passwd", "/etc/hostname",
                         "/var", "/usr/bin"):
                seen[path] = os.path.exists(path)
            return {"cwd": os.getcwd(), "seen": seen, "top": sorted(os.listdir("/")),
                    "uid": os.getuid()}
        ''', only("mountns", "userns"), imports="import os")
    assert outcome["cwd"] == "/sandbox"
    assert not any(outcome["seen"].values()), outcome
    assert "tmp" not in outcome["top"] and "home" not in outcome["top"]
    assert outcome["uid"] == 65534  # the nested user namespace has no uid mapping


def test_the_minimal_root_is_read_only_but_the_working_directory(tool, policy):
    outcome = attempt(tool, policy, '''
        def run(params):
            result = {}
            for path in ("/usr/lib/dyntools-probe", "/sandbox/probe", "/probe"):
                try:
                    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
                    result[path] = "created"
                except OSError as exc:
                    result[path] = exc.errno
            return result
        ''', only("mountns", "userns"), imports="import os")
    assert outcome == {"/usr/lib/dyntools-probe": 30, "/sandbox/probe": "created",
                       "/probe": 30}, outcome  # 30: EROFS


def test_time_zones_work_in_the_minimal_root(tool, policy):
    outcome = run_once(tool('''
        def run(params):
            zone = zoneinfo.ZoneInfo("Europe/Paris")
            moment = datetime.datetime(2024, 7, 1, 12, tzinfo=zone)
            return {"offset": moment.utcoffset().total_seconds()}
        ''', imports="import datetime\nimport zoneinfo"), {}, policy=policy)
    assert outcome == {"offset": 7200.0}


@pytest.mark.parametrize("skip", [ALL_OS, only("landlock_fs"), only("mountns")],
                         ids=["all", "landlock_fs", "mountns"])
def test_only_the_standard_library_is_readable_of_the_python_install(tool, policy, skip):
    """The read set is the standard library, not all of sys.prefix: site-packages, the
    interpreter's other files and the dyntools package itself stay out of reach."""
    import RestrictedPython

    import dyntools

    refused = [RestrictedPython.__file__, dyntools.__file__, __file__]
    outcome = attempt(tool, policy, f'''
        def run(params):
            result = {{}}
            for path in {refused!r}:
                try:
                    with open(path) as handle:
                        result[path] = len(handle.read())
                except OSError as exc:
                    result[path] = "refused"
            with open(os.__file__) as handle:
                result["stdlib"] = len(handle.read()) > 0
            return result
        ''', skip, imports="import os")
    assert outcome == {**{path: "refused" for path in refused}, "stdlib": True}, outcome


def test_the_minimal_root_plan_follows_symlinks(tmp_path):
    from dyntools.sandbox.spec import minimal_root

    (tmp_path / "usr" / "lib").mkdir(parents=True)
    (tmp_path / "usr" / "lib" / "x.so").write_text("")
    (tmp_path / "lib").symlink_to("usr/lib")
    (tmp_path / "opt").mkdir()
    (tmp_path / "opt" / "py").symlink_to(tmp_path / "usr" / "lib")
    (tmp_path / "cache").write_text("")
    plan = minimal_root([str(tmp_path / "lib"), str(tmp_path / "opt" / "py" / "x.so"),
                         str(tmp_path / "usr" / "lib"), str(tmp_path / "cache"),
                         str(tmp_path / "missing")])
    assert plan["dirs"] == [str(tmp_path / "usr" / "lib")]  # x.so lies inside: one bind
    assert plan["files"] == [str(tmp_path / "cache")]
    assert plan["links"] == [[str(tmp_path / "lib"), "usr/lib"],
                             [str(tmp_path / "opt" / "py"), str(tmp_path / "usr" / "lib")]]
