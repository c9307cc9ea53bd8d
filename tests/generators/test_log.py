from __future__ import annotations

import io
import json

import pytest
import structlog

from dyntools.log import configure_logging, get_logger


@pytest.fixture(autouse=True)
def restore_structlog():
    yield
    structlog.reset_defaults()


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
    events = [json.loads(line)["event"] for line in audit.read_text().splitlines()]
    assert events == ["station", "broken"]
    assert [json.loads(line)["event"] for line in err.getvalue().splitlines()] == ["broken"]


def test_unconfigured_logger_defaults_to_stderr(capsys) -> None:
    structlog.reset_defaults()
    get_logger("x").warning("hello")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "hello" in captured.err
