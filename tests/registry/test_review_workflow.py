"""Issue 10 through the real CLI (subprocesses): verified approvals, pending versions and the
approval policy, reviewer decisions, signed approvals, bad registry paths, a read-only
registry, interrupts and quiet logging."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.budget import examples
from tests.support.cli import DYNTOOLS
from tests.support.cli import dyntools as dt
from tests.support.environment import env_without_dyntools, lacking


def adder(answer: str = "a + b", examples: str = '[{"params": {"a": 1, "b": 2}, '
          '"result": {"sum": 3}}]') -> str:
    return (
        '"""Adds two numbers."""\n\n'
        'NAME = "add_numbers"\n'
        'DESCRIPTION = "Adds two numbers."\n'
        'PARAMS = {"type": "object", "properties": {"a": {"type": "integer"}, '
        '"b": {"type": "integer"}}, "required": ["a", "b"]}\n'
        f"EXAMPLES = {examples}\n\n\n"
        "def run(params):\n"
        '    a, b = params["a"], params["b"]\n'
        f'    return {{"sum": {answer}}}\n'
    )



def manifest(root: Path, name: str) -> dict:
    return json.loads((root / name / "manifest.json").read_text())


@pytest.fixture
def reg(tmp_path: Path) -> Path:
    return tmp_path / "reg"


def add_file(reg: Path, tmp_path: Path, source: str, *extra: str) -> subprocess.CompletedProcess:
    path = tmp_path / f"src{random.randrange(10**9)}.py"
    path.write_text(source)
    return dt("approve", "add_numbers", "--file", str(path), "--registry", str(reg), *extra)


# ------------------------------------------------------------- every path to current verifies


def test_approve_file_runs_its_examples_and_records_a_failure_as_rejected(
    reg: Path, tmp_path: Path
) -> None:
    assert dt("init", str(reg)).returncode == 0
    good = add_file(reg, tmp_path, adder())
    assert good.returncode == 0, good.stderr
    # 1 + 2 returns 4: its own EXAMPLES fail
    bad = add_file(reg, tmp_path, adder("a + b + 1"))
    assert bad.returncode == 12, bad.stderr
    assert "rejected" in bad.stderr and "expected" in bad.stderr
    entry = manifest(reg, "add_numbers")
    assert entry["current"] == 1
    assert entry["versions"][1]["status"] == "rejected"
    assert "verification_failed" in entry["versions"][1]["reason"]
    # the caller's --example is run too; its failure is the reviewer's, not the file's:
    # nothing is recorded
    wrong = add_file(reg, tmp_path, adder(), "--example",
                     '{"params": {"a": 2, "b": 2}, "result": {"sum": 5}}')
    assert wrong.returncode == 12
    assert "nothing was recorded" in wrong.stderr and "--example" in wrong.stderr
    # and the current version's contract: a version whose own EXAMPLES differ but which
    # breaks what v1 promised fails, unless --contract-change (which the error names)
    other = adder("a * b", '[{"params": {"a": 2, "b": 2}, "result": {"sum": 4}}]')
    broke = add_file(reg, tmp_path, other)
    assert broke.returncode == 12 and "--contract-change" in broke.stderr
    assert len(manifest(reg, "add_numbers")["versions"]) == 2
    changed = add_file(reg, tmp_path, other, "--contract-change")
    assert changed.returncode == 0, changed.stderr
    assert manifest(reg, "add_numbers")["current"] == 3


def test_approve_a_dropped_in_file_runs_its_examples(reg: Path, tmp_path: Path) -> None:
    assert dt("init", str(reg)).returncode == 0
    assert add_file(reg, tmp_path, adder()).returncode == 0
    (reg / "add_numbers" / "v2.py").write_text(adder("a - b"))
    bad = dt("approve", "add_numbers", "2", "--registry", str(reg))
    assert bad.returncode == 12
    entry = manifest(reg, "add_numbers")
    assert entry["current"] == 1 and entry["versions"][1]["status"] == "rejected"
    # the version is recorded (rejected), so review has nothing unrecorded to complain about
    assert dt("review", "--registry", str(reg)).returncode == 0


def test_ensure_rejected_bytes_cannot_be_approved_into_current(reg: Path, tmp_path: Path) -> None:
    source = tmp_path / "bad.py"
    source.write_text(adder("a + b + 1"))
    ensured = dt("ensure", "add_numbers", "--generator", "file", "--from", str(source),
                 "--registry", str(reg))
    assert ensured.returncode == 12
    again = dt("approve", "add_numbers", "--file", str(source), "--registry", str(reg))
    assert again.returncode == 12
    assert manifest(reg, "add_numbers")["current"] is None


# --------------------------------------------------------------- pending and the policy


def test_pending_flow_approve_reject_activate(reg: Path, tmp_path: Path) -> None:
    assert dt("init", str(reg), "--approval", "always").returncode == 0
    assert json.loads((reg / "config.json").read_text())["approval"] == "always"
    first = dt("ensure", "slugify_text", "--registry", str(reg))
    assert first.returncode == 17, first.stderr
    assert "pending approval" in first.stdout
    assert "dyntools approve slugify_text 1" in first.stdout
    as_json = dt("ensure", "slugify_text", "--json", "--registry", str(reg))
    assert as_json.returncode == 17
    body = json.loads(as_json.stdout)
    assert body["status"] == "pending" and body["version"] == 1 and not body["created"]
    called = dt("call", "slugify_text", "--params", '{"text": "A b"}', "--registry", str(reg))
    assert called.returncode == 17
    assert "slugify_text" in called.stderr and "v1" in called.stderr
    assert "dyntools approve slugify_text 1" in called.stderr
    listed = dt("pending", "--registry", str(reg))
    assert listed.returncode == 0 and "slugify_text v1" in listed.stdout
    assert json.loads(dt("pending", "--json", "--registry", str(reg)).stdout)["pending"]
    ok = dt("approve", "slugify_text", "1", "--reason", "read it", "--by", "alice",
            "--registry", str(reg))
    assert ok.returncode == 0, ok.stderr
    assert "by alice" in ok.stdout
    assert dt("call", "slugify_text", "--params", '{"text": "A b"}',
              "--registry", str(reg)).stdout.strip() == '{"slug": "a-b"}'
    # a second version waits; v1 keeps serving meanwhile
    second = dt("ensure", "slugify_text", "--new-version", "--registry", str(reg))
    assert second.returncode == 17
    rejected = dt("reject", "slugify_text", "2", "--reason", "not needed", "--by", "bob",
                  "--registry", str(reg))
    assert rejected.returncode == 0, rejected.stderr
    assert dt("reject", "slugify_text", "2", "--reason", "x",
              "--registry", str(reg)).returncode == 2  # not pending any more
    assert dt("approve", "slugify_text", "2", "--registry", str(reg)).returncode == 2
    third = dt("ensure", "slugify_text", "--new-version", "--registry", str(reg))
    assert third.returncode == 17
    assert dt("approve", "slugify_text", "3", "--by", "carol",
              "--registry", str(reg)).returncode == 0
    assert manifest(reg, "slugify_text")["current"] == 3
    back = dt("activate", "slugify_text", "1", "--reason", "v3 is slow", "--by", "dave",
              "--registry", str(reg))
    assert back.returncode == 0 and "current is now v1" in back.stdout
    forward = dt("activate", "slugify_text", "3", "--registry", str(reg))
    assert forward.returncode == 0 and "current is now v3" in forward.stdout
    assert dt("activate", "slugify_text", "2", "--registry", str(reg)).returncode == 1
    shown = dt("show", "slugify_text", "--version", "2", "--registry", str(reg)).stdout
    assert "reject by bob" in shown and "not needed" in shown
    listing = dt("list", "--registry", str(reg)).stdout
    assert "last decision" in listing
    history = manifest(reg, "slugify_text")["history"]
    assert any(e["action"] == "activate" and e.get("by") == "dave"
               and e.get("reason") == "v3 is slow" for e in history)
    audit = (reg / "audit.log").read_text()
    assert '"registry.reject"' in audit and '"by": "bob"' in audit


def test_require_approval_is_only_stricter(reg: Path) -> None:
    assert dt("init", str(reg), "--approval", "never").returncode == 0
    held = dt("ensure", "slugify_text", "--require-approval", "--registry", str(reg))
    assert held.returncode == 17
    # capabilities: no version declares capabilities before issue 11, so nothing waits
    assert dt("init", str(reg), "--approval", "capabilities").returncode == 0
    assert dt("ensure", "word_count", "--registry", str(reg)).returncode == 0
    assert dt("init", str(reg), "--approval", "bogus").returncode == 2


def test_a_pending_version_through_catalog_anthropic_and_mcp(reg: Path) -> None:
    from dyntools.adapters.anthropic_tools import dispatch_tool_uses
    from dyntools.adapters.mcp_server import McpToolServer
    from dyntools.catalog.core import Catalog
    from dyntools.errors import PendingApproval
    from dyntools.pipeline.dyntools import Dyntools

    assert dt("init", str(reg), "--approval", "always").returncode == 0
    assert dt("ensure", "slugify_text", "--registry", str(reg)).returncode == 17
    with Catalog(Dyntools(reg), generate=False) as catalog:
        with pytest.raises(PendingApproval) as caught:
            catalog.call("slugify_text", {"text": "x"})
        assert "dyntools approve slugify_text 1" in caught.value.message
        blocks = dispatch_tool_uses(catalog, [
            {"type": "tool_use", "id": "t1", "name": "slugify_text", "input": {"text": "x"}}])
        text = json.dumps(blocks)
        assert "pending" in text and "dyntools approve slugify_text 1" in text
        server = McpToolServer(catalog, generators=("offline",))
        try:
            answer = json.dumps(server.call_tool({"name": "slugify_text",
                                                  "params": {"text": "x"}}))
        except PendingApproval as exc:
            answer = exc.message
        finally:
            server.close()
        assert "dyntools approve slugify_text 1" in answer


# -------------------------------------------------------------------------------- retire


def test_retire_stops_review_failing_on_a_tampered_version(reg: Path, tmp_path: Path) -> None:
    assert dt("init", str(reg)).returncode == 0
    assert add_file(reg, tmp_path, adder()).returncode == 0
    assert add_file(reg, tmp_path, adder("b + a")).returncode == 0
    path = reg / "add_numbers" / "v2.py"
    path.chmod(0o644)
    path.write_text(adder("b + a") + "# edited\n")
    assert dt("review", "--registry", str(reg)).returncode == 1
    retired = dt("retire", "add_numbers", "2", "--reason", "tampered: incident 12",
                 "--registry", str(reg))
    assert retired.returncode == 0, retired.stderr
    assert "current is v1" in retired.stdout
    review = dt("review", "--registry", str(reg))
    assert review.returncode == 0, review.stdout
    assert "RETIRED" in review.stdout and "incident 12" in review.stdout
    assert path.exists()
    assert dt("activate", "add_numbers", "2", "--registry", str(reg)).returncode == 1
    assert dt("retire", "add_numbers", "2", "--registry", str(reg)).returncode == 2  # reason
    # a good new version goes on as usual
    assert add_file(reg, tmp_path, adder("a + b + 0")).returncode == 0
    assert dt("review", "--registry", str(reg)).returncode == 0


# -------------------------------------------------------------------------------- signing


def test_signed_approvals_and_trusted_keys(reg: Path, tmp_path: Path) -> None:
    key = tmp_path / "alice.key"
    made = dt("keygen", str(key))
    assert made.returncode == 0, made.stderr
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    assert dt("keygen", str(key)).returncode == 2  # never overwritten
    trusted = tmp_path / "trusted_keys"
    trusted.write_text("# reviewers\n" + (tmp_path / "alice.key.pub").read_text())
    assert dt("init", str(reg), "--approval", "always").returncode == 0
    assert dt("ensure", "slugify_text", "--registry", str(reg)).returncode == 17
    assert dt("approve", "slugify_text", "1", "--sign-key", str(key),
              "--registry", str(reg)).returncode == 0
    # ensure signs too (DYNTOOLS_SIGNING_KEY), here with approval off
    assert dt("init", str(reg), "--approval", "never").returncode == 0
    env = env_without_dyntools(DYNTOOLS_SIGNING_KEY=str(key))
    assert dt("ensure", "word_count", "--registry", str(reg), env=env).returncode == 0
    assert dt("ensure", "url_parts", "--registry", str(reg)).returncode == 0  # unsigned
    # with trusted keys, ensure without a signing key fails before generating: activating a
    # version is a decision, and a decision without a trusted key is exit 14
    refused_early = dt("ensure", "roman_numeral", "--registry", str(reg), "--trusted-keys",
                       str(trusted))
    assert refused_early.returncode == 14 and "must be signed" in refused_early.stderr
    assert "generate" not in refused_early.stderr
    assert not (reg / "roman_numeral").exists()
    keys = ("--trusted-keys", str(trusted))
    call = dt("call", "slugify_text", "--params", '{"text": "A b"}', "--registry", str(reg),
              *keys)
    assert call.returncode == 0, call.stderr
    review = dt("review", "--json", "--registry", str(reg), *keys)
    assert review.returncode == 1
    codes = {(t["name"], v["reason_code"]) for t in json.loads(review.stdout)["tools"]
             for v in t["versions"] if v["status"] == "quarantined"}
    assert codes == {("url_parts", "unsigned")}
    unsigned = dt("call", "url_parts", "--params", '{"url": "http://a/b"}',
                  "--registry", str(reg),
                  env=env_without_dyntools(DYNTOOLS_TRUSTED_KEYS=str(trusted)))
    assert unsigned.returncode == 16 and "unsigned" in unsigned.stderr
    # without trusted keys: today's behaviour
    assert dt("review", "--registry", str(reg)).returncode == 0
    assert dt("retire", "url_parts", "1", "--reason", "unsigned",
              "--registry", str(reg)).returncode == 0
    assert dt("review", "--registry", str(reg), *keys).returncode == 0
    # an attacker edits a version file and its manifest's hash together: the hash check
    # passes, the signature does not
    path = reg / "slugify_text" / "v1.py"
    forged = path.read_text().replace("Turns a title", "Turns any title")
    path.chmod(0o644)
    path.write_text(forged)
    data = manifest(reg, "slugify_text")
    import hashlib

    data["versions"][0]["sha256"] = hashlib.sha256(forged.encode()).hexdigest()
    data["versions"][0]["size"] = len(forged.encode())
    (reg / "slugify_text" / "manifest.json").write_text(json.dumps(data))
    assert dt("review", "--registry", str(reg)).returncode == 0  # unsigned manifests: blind
    caught = dt("review", "--json", "--registry", str(reg), *keys)
    assert caught.returncode == 1
    codes = {(t["name"], v["reason_code"]) for t in json.loads(caught.stdout)["tools"]
             for v in t["versions"] if v["status"] == "quarantined"}
    assert codes == {("slugify_text", "bad_signature")}
    refused = dt("call", "slugify_text", "--params", '{"text": "A b"}', "--registry", str(reg),
                 *keys)
    assert refused.returncode == 16
    bad_keys = tmp_path / "bad_keys"
    bad_keys.write_text("not a key\n")
    assert dt("review", "--registry", str(reg), "--trusted-keys", str(bad_keys)).returncode == 2


# ---------------------------------------------------------------------------- bad paths

COMMANDS = [
    ("list",), ("search", "slug"), ("show", "slugify_text"), ("diff", "slugify_text", "1", "2"),
    ("review",), ("pending",), ("approve", "slugify_text", "1"),
    ("reject", "slugify_text", "1", "--reason", "x"), ("activate", "slugify_text", "1"),
    ("retire", "slugify_text", "1", "--reason", "x"), ("rollback", "slugify_text", "1"),
    ("watch", "--duration", "0"), ("call", "slugify_text", "--params", "{}"),
    ("ensure", "slugify_text"), ("serve-mcp",), ("init",),
]


def _one_clean_line(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_registry_path_that_is_a_file(tmp_path: Path, command: tuple[str, ...]) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    _one_clean_line(dt(*command, "--registry", str(file)) if command[0] != "init"
                    else dt("init", str(file)))
    _one_clean_line(dt(*command, env=env_without_dyntools(DYNTOOLS_REGISTRY=str(file))))
    assert file.read_text() == "x"


@pytest.mark.parametrize("command", [c for c in COMMANDS
                                     if c[0] not in ("ensure", "serve-mcp", "init")],
                         ids=lambda c: c[0])
def test_a_missing_registry(tmp_path: Path, command: tuple[str, ...]) -> None:
    missing = tmp_path / "nowhere"
    _one_clean_line(dt(*command, "--registry", str(missing)))
    _one_clean_line(dt(*command, env=env_without_dyntools(DYNTOOLS_REGISTRY=str(missing))))
    assert not missing.exists()


NO_DAC = ("setpriv", "--bounding-set=-dac_override,-dac_read_search",
          "--inh-caps=-dac_override,-dac_read_search")


def _can_drop_dac() -> bool:
    if shutil.which("setpriv") is None:
        return False
    probe = subprocess.run([*NO_DAC, "true"], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.parametrize("command", [c for c in COMMANDS if c[0] != "init"],
                         ids=lambda c: c[0])
def test_an_unreadable_registry(tmp_path: Path, command: tuple[str, ...]) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        if os.geteuid() == 0:
            if not _can_drop_dac():
                lacking("root without setpriv: permissions cannot be enforced")
            prefix: tuple[str, ...] = NO_DAC
        else:
            prefix = ()
        _one_clean_line(dt(*command, "--registry", str(locked), prefix=prefix))
        _one_clean_line(dt(*command, prefix=prefix,
                           env=env_without_dyntools(DYNTOOLS_REGISTRY=str(locked))))
    finally:
        locked.chmod(0o755)


# --------------------------------------------------------------------- read-only registry


def _read_only_prefix(root: Path) -> tuple[str, ...]:
    """Run the command with `root` bind-mounted read-only (a private mount namespace)."""
    if shutil.which("unshare") is None:
        lacking("no unshare")
    probe = subprocess.run(["unshare", "-m", "sh", "-c",
                            f"mount --bind -o ro {root} {root}"],
                           capture_output=True, check=False)
    if probe.returncode != 0:
        lacking(f"cannot make a read-only mount here: {probe.stderr!r}")
    return ("unshare", "-m", "sh", "-c", 'mount --bind -o ro "$0" "$0" && shift && exec "$@"',
            str(root), "--")


def test_a_read_only_registry_serves_and_refuses_to_grow(reg: Path, tmp_path: Path) -> None:
    assert dt("ensure", "slugify_text", "--registry", str(reg)).returncode == 0
    assert dt("ensure", "slugify_text", "--new-version", "--registry", str(reg)).returncode == 0
    before = (reg / "audit.log").read_text()
    ro = _read_only_prefix(reg)
    args = ("--registry", str(reg))
    call = dt("call", "slugify_text", "--params", '{"text": "A b"}', *args, prefix=ro)
    assert call.returncode == 0, call.stderr
    assert call.stdout.strip() == '{"slug": "a-b"}'
    assert "Traceback" not in call.stderr and '"execute"' in call.stderr  # audit on stderr
    for command in (("list",), ("show", "slugify_text"), ("diff", "slugify_text", "1", "2"),
                    ("review",), ("pending",)):
        done = dt(*command, *args, prefix=ro)
        assert done.returncode == 0, (command, done.stderr)
        assert "Traceback" not in done.stderr
    audit = tmp_path / "elsewhere.log"
    logged = dt("call", "slugify_text", "--params", '{"text": "A b"}', *args,
                "--audit-log", str(audit), prefix=ro)
    assert logged.returncode == 0 and '"execute"' in audit.read_text()
    env_logged = dt("call", "slugify_text", "--params", '{"text": "x"}', *args, prefix=ro,
                    env=env_without_dyntools(DYNTOOLS_AUDIT_LOG=str(audit)))
    assert env_logged.returncode == 0 and audit.read_text().count('"execute"') == 2
    grow = dt("ensure", "word_count", *args, prefix=ro)
    assert grow.returncode == 16 and "read-only" in grow.stderr
    assert "generate" not in grow.stderr  # failed before generating
    assert "Traceback" not in grow.stderr
    served = subprocess.Popen([*ro, *DYNTOOLS, "serve-mcp", *args], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env_without_dyntools())
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    out, err = served.communicate(json.dumps(init) + "\n", timeout=60)
    assert served.returncode == 0, err
    assert '"result"' in out and "Traceback" not in err
    assert (reg / "audit.log").read_text() == before


# ----------------------------------------------------------------------------- interrupts


def _started_ensure(reg: Path, name: str) -> tuple[
        subprocess.Popen[str], threading.Event, threading.Thread, list[str]]:
    """An `ensure` at info level, and an event set once its first station line is out (by
    then its signal handlers are installed: they go in before the command modules load)."""
    process = subprocess.Popen(
        [*DYNTOOLS, "ensure", name, "--new-version", "--registry", str(reg), "--log-level", "info"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_without_dyntools())
    started = threading.Event()
    lines: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "lookup" in line:
                started.set()
        started.set()  # ended without a station line: nothing left to wait for

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return process, started, reader, lines


@pytest.mark.slow
def test_interrupting_ensure_at_random_points_leaves_the_registry_reviewable(
    reg: Path,
) -> None:
    rng = random.Random(int(os.environ.get("DYNTOOLS_INTERRUPT_SEED", "10")))
    names = ["slugify_text", "word_count", "url_parts", "roman_numeral", "json_pretty"]
    codes: list[int] = []
    assert dt("init", str(reg)).returncode == 0
    # How long an ensure runs after its first station line, on this machine, now: the
    # signals land at random points inside that span, however fast or loaded the machine is.
    process, started, _, _ = _started_ensure(reg, "json_pretty")
    assert started.wait(60)
    begun = time.monotonic()
    assert process.wait(timeout=60) == 0
    span = time.monotonic() - begun
    audited = False
    # Each tool once in the suite (SIGINT, SIGTERM, SIGINT, ...: both signals, the seed's
    # points); a hundred rounds under `make fuzz`, where it is a soak.
    for attempt in range(examples(len(names), 100)):
        name = names[attempt % len(names)]
        signum = signal.SIGINT if attempt % 2 == 0 else signal.SIGTERM
        process, started, reader, lines = _started_ensure(reg, name)
        assert started.wait(60)
        time.sleep(rng.uniform(0.0, 0.8 * span))
        process.send_signal(signum)
        sent = time.monotonic()
        process.wait(timeout=60)
        took = time.monotonic() - sent
        reader.join(10)
        err = "".join(lines)
        assert "Traceback" not in err, err
        expected = 130 if signum == signal.SIGINT else 143
        # -signum: the signal landed while the interpreter was shutting down after the
        # command finished (its handlers are reset then); a shell sees 128 + N all the same.
        assert process.returncode in (0, expected, -signum), (process.returncode, err)
        # The clean-up ends by itself: the bound that ends a stuck one (15 s) never fires.
        assert "did not finish" not in err, (attempt, round(took, 2), err)
        if process.returncode == expected:
            assert "interrupted" in err, (attempt, round(took, 2), err)
            audited = True  # the lookup station logged: the audit log was open
        codes.append(process.returncode)
    assert any(code != 0 for code in codes), codes  # at least one really was interrupted
    review = dt("review", "--registry", str(reg))
    assert review.returncode == 0, review.stdout + review.stderr
    if audited:
        assert '"interrupted"' in (reg / "audit.log").read_text()


# ------------------------------------------------------------------------------ quiet logs


def test_a_problem_is_one_warning_line_per_open(reg: Path, tmp_path: Path) -> None:
    assert dt("ensure", "slugify_text", "--registry", str(reg)).returncode == 0
    assert dt("ensure", "word_count", "--registry", str(reg)).returncode == 0
    for name in ("slugify_text", "word_count"):
        path = reg / name / "v1.py"
        path.chmod(0o644)
        path.write_text(path.read_text() + "# edited\n")
    (reg / "word_count" / "v7.py").write_text("x = 1\n")
    listed = dt("list", "--registry", str(reg))
    lines = [line for line in listed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and '"registry.problems"' in lines[0], listed.stderr
    assert json.loads(lines[0])["count"] == 3
    review = dt("review", "--registry", str(reg))
    assert review.returncode == 1
    assert not any(line.startswith("{") for line in review.stdout.splitlines())


def test_an_interrupt_ends_the_command_even_when_its_clean_up_hangs(tmp_path: Path) -> None:
    # A clean-up that never ends (here: a finally block that sleeps) must not keep an
    # interrupted command alive: the process ends with 143 within the clean-up limit.
    script = tmp_path / "stuck.py"
    script.write_text(
        "import os, signal, time\n"
        "from dyntools.base import interrupts\n"
        "interrupts.CLEANUP_LIMIT_S = 1.0\n"
        "interrupts.install()\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(30)\n"
        "finally:\n"
        "    time.sleep(30)\n")
    # The run's timeout is the hang guard: the clean-up alone would sleep 60 s.
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=False,
                          timeout=20, env=env_without_dyntools())
    assert done.returncode == 143, done.stderr
    # and says why it ended there, in one line
    assert done.stderr == ("dyntools: interrupted (SIGTERM); the clean-up did not finish "
                           "within 1 s\n")


def test_a_signal_after_the_command_returned_lets_the_exit_finish() -> None:
    # Once the command has chosen its exit code, a late signal is not an interrupt: the
    # exit finishes with that code and prints no traceback from the shutdown.
    code = (
        "import os, signal, sys, atexit, time\n"
        "from dyntools.base import interrupts\n"
        "interrupts.install()\n"
        "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGTERM), time.sleep(0.2)))\n"
        "interrupts.finishing()\n"
        "sys.exit(3)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          timeout=20, env=env_without_dyntools())
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
