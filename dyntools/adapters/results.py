"""Results and errors as the values that cross an adapter boundary.

A tool's result and a station's error both leave as JSON text a model can read. An error is
`{"error": {"station", "reason", "message", "details"}}`: the same `as_dict()` form the CLI
prints, so a model, a log reader and a script all see one shape. Anything that is not a
`DyntoolsError` (a bug) still leaves as a value, with reason `internal_error`, never as an
exception through the adapter.
"""

from __future__ import annotations

import json
from typing import Any

from dyntools.errors import DyntoolsError

INTERNAL_STATION = "adapter"
INTERNAL_REASON = "internal_error"


def error_payload(exc: BaseException) -> dict[str, Any]:
    """`{"error": {...}}` for any exception; typed for a `DyntoolsError`."""
    if isinstance(exc, DyntoolsError):
        body = exc.as_dict()
        body["details"] = dict(body["details"])  # the caller may add to it; the error keeps its own
    else:
        body = {
            "station": INTERNAL_STATION,
            "reason": INTERNAL_REASON,
            "message": f"{type(exc).__name__}: {exc}",
            "details": {},
        }
    return {"error": body}


def to_json_text(value: Any) -> str:
    """Compact JSON; values JSON cannot express are written as their `str` (never raises)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError) as exc:  # a cycle, or a key JSON cannot express
        return json.dumps(error_payload(exc), ensure_ascii=False, default=str)
