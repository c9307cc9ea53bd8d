"""jsonschema-rs, loaded on first use (with a signal held while its native init runs), in a
fresh interpreter: its validators refuse what the schema refuses and, as JSON Schema's default
says, do not assert formats."""

from __future__ import annotations

import json

from tests.support.fresh import fresh_stdout

PROBE = """
import json
from dyntools.base.jsonschema_safe import compile_validator, validation_error
validator = compile_validator({"type": "object", "properties": {"when": {
    "type": "string", "format": "date-time"}}, "required": ["when"]})
print(json.dumps([validation_error(validator, {}) is not None,
                  validation_error(validator, {"when": "x"}) is None]))
"""


def test_the_engine_loads_and_validates() -> None:
    refuses_missing, formats_not_asserted = json.loads(fresh_stdout(PROBE))
    assert refuses_missing and formats_not_asserted
