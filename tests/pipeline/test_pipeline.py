"""ensure: the stations in order, verification before activation, the contract of a new
version, nothing written on a gate rejection, and calls through the runtime."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from dyntools.errors import (
    GateRejected,
    InvalidParams,
    LoadError,
    SandboxError,
    UnknownTool,
    UsageError,
    VerificationFailed,
    VersionUnusable,
)
from dyntools.generators import FileGenerator, ToolSpec
from dyntools.pipeline.dyntools import Dyntools
from dyntools.pipeline.events import AUDIT_EVENT, STATIONS, StationEvent
from dyntools.registry import APPROVED, REJECTED, Registry

from .conftest import ECHO_EXAMPLES, CountingGenerator, audit_capture, tool_source

NEW_TOOL_STATIONS = ["lookup", *STATIONS]


def test_a_new_tool_goes_through_every_station_and_becomes_current(
    dt: Dyntools, generator: CountingGenerator
) -> None:
    seen: list[StationEvent] = []
    result = dt.ensure("echo_text", on_station=seen.append)
    assert result.created and result.version == 1
    assert [e.station for e in result.stations] == NEW_TOOL_STATIONS
    assert [e.outcome for e in result.stations] == [
        "miss", "ok", "accepted", "ok", "ok", "approved", "ok"]
    # listeners see each station start ("running") before it ends
    assert [(e.station, e.finished) for e in seen][:4] == [
        ("lookup", False), ("lookup", True), ("generate", False), ("generate", True)]
    assert dt.registry.current("echo_text").status == APPROVED
    assert result.record.provenance["verification"]["examples"] == ECHO_EXAMPLES
    assert dt.call("echo_text", {"text": "hi"}) == {"echo": "hi"}
    assert generator.calls == ["echo_text"]


def test_an_existing_tool_is_served_from_the_registry_without_generation(
    dt: Dyntools, generator: CountingGenerator
) -> None:
    dt.ensure("echo_text")
    again = dt.ensure("echo_text")
    assert not again.created and again.version == 1
    assert [(e.station, e.outcome) for e in again.stations] == [("lookup", "hit")]
    assert generator.calls == ["echo_text"]


def test_a_version_that_breaks_its_own_example_is_persisted_rejected_never_current(
    registry_dir: Path,
) -> None:
    wrong = [{"params": {"text": "a"}, "result": {"echo": "b"}}]
    gen = CountingGenerator({"echo_text": tool_source("echo_text", examples=wrong)})
    with Dyntools(registry_dir, generator=gen) as dt:
        with pytest.raises(VerificationFailed) as caught:
            dt.ensure("echo_text")
        assert dt.registry.current("echo_text") is None
        [record] = dt.registry.versions("echo_text")
    assert record.status == REJECTED
    assert "verification_failed" in (record.reason or "")
    assert 'expected {"echo": "b"}, got {"echo": "a"}' in caught.value.message
    [failure] = caught.value.details["verification"]["examples"]
    assert failure["status"] == "failed"
    assert failure["expected"] == {"echo": "b"} and failure["actual"] == {"echo": "a"}
    assert caught.value.details["version"] == 1
    # a fresh process sees the same: rejected, nothing current
    reopened = Registry.open(registry_dir)
    assert reopened.current("echo_text") is None
    assert reopened.get("echo_text", 1).status == REJECTED


def test_caller_examples_are_verified_and_a_failure_blocks_activation(dt: Dyntools) -> None:
    with pytest.raises(VerificationFailed) as caught:
        dt.ensure("echo_text", examples=[{"params": {"text": "x"}, "result": {"echo": "y"}}])
    assert "(caller)" in caught.value.message
    assert dt.registry.current("echo_text") is None


def test_caller_example_params_are_checked_against_the_tool_schema(dt: Dyntools) -> None:
    with pytest.raises(VerificationFailed) as caught:
        dt.ensure("echo_text", examples=[{"params": {"txt": "x"}, "result": {"echo": "x"}}])
    [_, failure] = caught.value.details["verification"]["examples"]
    assert failure["error"]["reason"] == "invalid_params"


def test_a_malformed_caller_example_fails_before_anything_is_generated(
    dt: Dyntools, generator: CountingGenerator
) -> None:
    with pytest.raises(UsageError):
        dt.ensure("echo_text", examples=[{"params": {"text": "x"}}])
    assert generator.calls == []


def test_a_tool_that_raises_on_an_example_fails_verification_with_the_reason(
    registry_dir: Path,
) -> None:
    source = tool_source("echo_text", result='{"n": 1 // len(params["text"])}',
                         examples=[{"params": {"text": ""}, "result": {"n": 0}}])
    gen = CountingGenerator({"echo_text": source})
    with Dyntools(registry_dir, generator=gen) as dt, pytest.raises(VerificationFailed) as caught:
        dt.ensure("echo_text")
    [failure] = caught.value.details["verification"]["examples"]
    assert failure["status"] == "error"
    assert failure["error"]["reason"] == "runtime_error"


def test_a_new_version_must_keep_the_examples_the_current_version_passed(
    registry_dir: Path,
) -> None:
    v1 = tool_source("echo_text", examples=ECHO_EXAMPLES)
    # v2 shouts; its own example agrees with it, but it breaks v1's contract
    v2 = tool_source("echo_text", result='{"echo": params["text"].upper()}',
                     examples=[{"params": {"text": "b"}, "result": {"echo": "B"}}])
    gen = CountingGenerator({"echo_text": v1})
    with Dyntools(registry_dir, generator=gen) as dt:
        dt.ensure("echo_text")
        gen.sources["echo_text"] = v2
        with pytest.raises(VerificationFailed) as caught:
            dt.ensure("echo_text", new_version=True)
        assert "(contract)" in caught.value.message
        assert dt.registry.current("echo_text").version == 1
        assert dt.registry.get("echo_text", 2).status == REJECTED
        assert dt.call("echo_text", {"text": "a"}) == {"echo": "a"}

        changed = dt.ensure("echo_text", new_version=True, contract_change=True)
        assert changed.version == 3 and dt.registry.current("echo_text").version == 3
        assert changed.record.provenance["contract_change"] is True
        assert "contract_change" not in dt.registry.get("echo_text", 1).provenance
        # new calls go to the new version at once
        assert dt.call("echo_text", {"text": "a"}) == {"echo": "A"}


def test_the_contract_is_what_the_current_version_passed_including_caller_examples(
    registry_dir: Path,
) -> None:
    gen = CountingGenerator({"echo_text": tool_source("echo_text", examples=ECHO_EXAMPLES)})
    extra = {"params": {"text": "zz"}, "result": {"echo": "zz"}}
    with Dyntools(registry_dir, generator=gen) as dt:
        dt.ensure("echo_text", examples=[extra])
        gen.sources["echo_text"] = tool_source(
            "echo_text", result='{"echo": params["text"][:1]}', examples=ECHO_EXAMPLES)
        with pytest.raises(VerificationFailed) as caught:
            dt.ensure("echo_text", new_version=True)
    assert '"zz"' in caught.value.message


def test_a_gate_rejection_from_a_file_generator_is_typed_and_writes_nothing(
    tmp_path: Path, registry_dir: Path
) -> None:
    bad = tmp_path / "echo_text.py"
    bad.write_text(tool_source("echo_text", body="import os\nos.system('id')"))
    with (
        Dyntools(registry_dir, generator=FileGenerator(str(bad))) as dt,
        audit_capture() as logs,
        pytest.raises(GateRejected) as caught,
    ):
        dt.ensure("echo_text")
    assert caught.value.station == "gate" and caught.value.reason == "unsafe_source"
    assert caught.value.details["findings"]
    assert not (registry_dir / "echo_text").exists()
    stations = [(e["station"], e["outcome"]) for e in logs if e["event"] == AUDIT_EVENT]
    assert stations == [("lookup", "miss"), ("generate", "ok"), ("gate", "rejected")]


def test_the_audit_log_has_one_event_per_station_with_its_fields(dt: Dyntools) -> None:
    with audit_capture() as logs:
        dt.ensure("echo_text")
        dt.call("echo_text", {"text": "a"})
    events = [e for e in logs if e["event"] == AUDIT_EVENT]
    assert [e["station"] for e in events] == [*NEW_TOOL_STATIONS, "execute"]
    for event in events:
        assert {"tool", "version", "station", "duration_ms", "outcome", "reason"} <= set(event)
        assert event["tool"] == "echo_text"
        assert event["duration_ms"] >= 0
    assert [e["version"] for e in events][-3:] == [1, 1, 1]  # persist, activate, execute


def test_calls_check_params_and_name_unknown_tools(dt: Dyntools) -> None:
    dt.ensure("echo_text")
    with pytest.raises(InvalidParams):
        dt.call("echo_text", {"text": 3})
    with pytest.raises(UnknownTool):
        dt.call("no_such_tool", {})


def test_a_spec_object_and_keyword_arguments_are_not_mixed(dt: Dyntools) -> None:
    with pytest.raises(ValueError, match="inside the ToolSpec"):
        dt.ensure(ToolSpec("echo_text"), description="x")


def test_a_compile_error_at_load_is_persisted_as_rejected(
    dt: Dyntools, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object) -> None:
        raise LoadError("RestrictedPython refused line 3", path="x")

    monkeypatch.setattr(dt, "_open_pool", refuse)
    with audit_capture() as logs, pytest.raises(LoadError) as caught:
        dt.ensure("echo_text")
    assert caught.value.station == "load" and caught.value.details["version"] == 1
    record = dt.registry.get("echo_text", 1)
    assert record.status == REJECTED and record.reason.startswith("compile_error")
    assert dt.registry.current("echo_text") is None
    stations = [(e["station"], e["outcome"]) for e in logs if e["event"] == AUDIT_EVENT]
    assert stations[-2:] == [("load", "failed"), ("persist", "rejected")]


def test_concurrent_ensures_of_one_name_generate_once(
    dt: Dyntools, generator: CountingGenerator
) -> None:
    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(dt.ensure("echo_text").version))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [1, 1, 1, 1]
    assert generator.calls == ["echo_text"]


def test_a_tool_edited_on_disk_is_not_listed_or_called(dt: Dyntools) -> None:
    record = dt.ensure("echo_text").record
    record.path.chmod(0o644)
    record.path.write_text(record.path.read_text().replace('"echo"', '"evil"'))
    dt.registry.refresh("echo_text")
    assert dt.tools() == []
    with pytest.raises(VersionUnusable):
        dt.call("echo_text", {"text": "a"})


def test_a_worker_that_cannot_start_fails_load_and_writes_nothing(registry_dir: Path) -> None:
    gen = CountingGenerator({"echo_text": tool_source("echo_text", examples=ECHO_EXAMPLES)})
    with Dyntools(registry_dir, generator=gen, require_layers=frozenset({"restricted"})) as ok:
        assert ok.ensure("echo_text").created  # a layer that is active: fine
    with pytest.raises(UsageError, match="unknown sandbox layer"):
        Dyntools(registry_dir, require_layers=frozenset({"no_such_layer_for_test"}))
    # a layer no worker can report (set behind the constructor's check)
    with Dyntools(registry_dir, generator=gen) as dt:
        dt.require_layers = frozenset({"no_such_layer_for_test"})
        with audit_capture() as logs, pytest.raises(SandboxError) as caught:
            dt.ensure("echo_text", new_version=True)
    assert caught.value.details["during"] == "load"
    assert [v.version for v in Registry.open(registry_dir).versions("echo_text")] == [1]
    stations = [(e["station"], e["outcome"]) for e in logs if e["event"] == AUDIT_EVENT]
    assert stations[-1] == ("load", "failed")


def test_the_verified_worker_takes_the_first_calls(dt: Dyntools) -> None:
    dt.ensure("echo_text")
    runtime = dt.runtime
    # Active before any call: the verification pool was adopted, not closed.
    assert runtime.describe()["active"]["echo_text"]["version"] == 1
    assert dt.call("echo_text", {"text": "warm"}) == {"echo": "warm"}


def test_contract_change_needs_new_version(dt: Dyntools) -> None:
    from dyntools.errors import UsageError

    with pytest.raises(UsageError, match="new_version"):
        dt.ensure("echo_text", contract_change=True)


def test_a_version_is_a_whole_number_not_a_bool(dt: Dyntools) -> None:
    from dyntools.errors import UsageError

    dt.ensure("echo_text")
    with pytest.raises(UsageError, match="whole number"):
        dt.registry.activate("echo_text", True)
