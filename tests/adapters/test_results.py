"""Errors and results as the JSON text that crosses an adapter boundary."""

from __future__ import annotations

import json
from typing import Any

from dyntools.adapters.results import error_payload, to_json_text
from dyntools.errors import SandboxTimeout, UnknownTool


def test_a_dyntools_error_keeps_its_station_reason_and_details() -> None:
    error = SandboxTimeout("took too long", tool="spin", timeout_s=1.0)
    assert error_payload(error) == {"error": {
        "station": "execute", "reason": "timeout", "message": "took too long",
        "details": {"tool": "spin", "timeout_s": 1.0}}}


def test_the_payload_does_not_share_the_errors_details() -> None:
    error = UnknownTool("unknown tool 'x'", tool="x")
    error_payload(error)["error"]["details"]["hint"] = "added"
    assert error.details == {"tool": "x"}


def test_any_other_exception_is_an_internal_error() -> None:
    assert error_payload(ValueError("bad")) == {"error": {
        "station": "adapter", "reason": "internal_error", "message": "ValueError: bad",
        "details": {}}}


def test_json_text_never_raises() -> None:
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    assert json.loads(to_json_text(cycle))["error"]["reason"] == "internal_error"
    assert json.loads(to_json_text({"path": object.__name__, "set": {1}})) == {
        "path": "object", "set": "{1}"}
    assert to_json_text({"text": "crème"}) == '{"text": "crème"}'
