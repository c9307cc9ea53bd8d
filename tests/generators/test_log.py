from __future__ import annotations

import io
import json
import logging
import os
import signal
import subprocess
import sys

import pytest
import structlog

from dyntools.base import log as dyntools_log
from dyntools.base.log import configure_logging, flush_logs, get_logger


@pytest.fixture(autouse=True)
def restore_structlog():
    yield
    structlog.reset_defaults()
    dyntools_log._state.configured = None  # back to "never configured" for the next test


def test_json_on_stderr_at_the_chosen_level_and_nothing_on_stdout(capsys) -> None:
    err = io.StringIO()
    configure_logging("warning", stderr=err)
    log = get_logger("pipeline", tool="t")
    log.info("quiet")
    log.warning("loud", station="gate")
    lines = err.getvalue().splitlines()
    assert len(lines) == 1
    event = json.loads(lines[0])
    assert event["event"] == "loud" and event["level"] == "warning"
    assert event["component"] == "pipeline" and event["tool"] == "t" and "timestamp" in event
    assert capsys.readouterr().out == ""


def test_audit_file_gets_info_whatever_the_stderr_level(tmp_path) -> None:
    err = io.StringIO()
    audit = tmp_path / "registry" / "audit.log"
    configure_logging("error", audit_path=audit, stderr=err)
    log = get_logger("pipeline")
    log.debug("too detailed")
    log.info("station", station="persist", outcome="ok")
    log.error("broken")
    flush_logs()
    events = [json.loads(line)["event"] for line in audit.read_text().splitlines()]
    assert events == ["station", "broken"]
    assert [json.loads(line)["event"] for line in err.getvalue().splitlines()] == ["broken"]


def test_unconfigured_logger_defaults_to_stderr(capsys) -> None:
    structlog.reset_defaults()
    get_logger("x").warning("hello")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "hello" in captured.err


def test_configure_logging_leaves_structlog_and_logging_as_the_host_set_them(tmp_path) -> None:
    structlog.reset_defaults()
    before = structlog.get_config()
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    configure_logging("info", audit_path=tmp_path / "audit.log", stderr=io.StringIO())
    get_logger("x").info("hello")
    assert not structlog.is_configured()
    after = structlog.get_config()
    assert after["processors"] == before["processors"]
    assert after["logger_factory"] is before["logger_factory"]
    assert after["wrapper_class"] is before["wrapper_class"]
    assert list(root.handlers) == handlers and root.level == level


def test_get_logger_configures_nothing(capsys) -> None:
    structlog.reset_defaults()
    log = get_logger("x", tool="t")
    log.warning("hello")
    log.bind(more=1).error("again")
    assert not structlog.is_configured()
    captured = capsys.readouterr()
    assert captured.out == ""
    assert [json.loads(line)["event"] for line in captured.err.splitlines()] == ["hello", "again"]


def test_a_host_structlog_configuration_receives_dyntools_events() -> None:
    seen: list[dict] = []

    def keep(logger: object, method: str, event_dict: dict) -> str:
        seen.append(dict(event_dict))
        return ""

    structlog.configure(processors=[keep], logger_factory=structlog.ReturnLoggerFactory())
    get_logger("pipeline", tool="t").info("station", outcome="ok")
    assert seen == [{"component": "pipeline", "tool": "t", "outcome": "ok", "event": "station"}]


def test_capture_logs_sees_events_even_after_configure_logging(tmp_path) -> None:
    configure_logging("error", audit_path=tmp_path / "audit.log", stderr=io.StringIO())
    with structlog.testing.capture_logs() as logs:
        get_logger("x").debug("detail", n=1)
    assert logs == [{"component": "x", "n": 1, "event": "detail", "log_level": "debug"}]


def test_reconfiguring_closes_the_previous_audit_file(tmp_path) -> None:
    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    configure_logging("error", audit_path=tmp_path / "a0.log", stderr=io.StringIO())
    get_logger("x").info("first")
    baseline = open_fds()
    for n in range(1, 51):
        configure_logging("error", audit_path=tmp_path / f"a{n}.log", stderr=io.StringIO())
        get_logger("x").info("event", n=n)
    assert open_fds() <= baseline
    # Each earlier file was flushed when it was closed.
    assert json.loads((tmp_path / "a0.log").read_text())["event"] == "first"
    assert json.loads((tmp_path / "a7.log").read_text())["n"] == 7
    configure_logging("error", stderr=io.StringIO())
    assert open_fds() < baseline


def test_exceptions_are_formatted_when_logged(tmp_path) -> None:
    configure_logging("critical", audit_path=tmp_path / "audit.log", stderr=io.StringIO())
    try:
        raise ValueError("boom")
    except ValueError:
        get_logger("x").exception("failed")
    flush_logs()
    event = json.loads((tmp_path / "audit.log").read_text())
    assert event["level"] == "error" and "ValueError: boom" in event["exception"]


WRITER = """
import signal, sys, time
from dyntools.base.log import configure_logging, get_logger
if sys.argv[3] == "host-handler":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
configure_logging("error", audit_path=sys.argv[1])
log = get_logger("pipeline")
for n in range(int(sys.argv[2])):
    log.info("pipeline.station", station="execute", n=n)
print("ready", flush=True)
if sys.argv[3] != "exit":
    time.sleep(60)
"""


@pytest.mark.parametrize("ending", ["exit", "sigterm", "host-handler"])
def test_no_audit_event_is_lost_at_exit_or_on_sigterm(tmp_path, ending: str) -> None:
    audit = tmp_path / "audit.log"
    count = 5000
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(audit), str(count), ending],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n"
    if ending != "exit":
        process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    expected = {"exit": 0, "sigterm": -signal.SIGTERM, "host-handler": 3}[ending]
    assert process.returncode == expected, err
    numbers = [json.loads(line)["n"] for line in audit.read_text().splitlines()]
    assert numbers == list(range(count))
