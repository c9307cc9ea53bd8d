"""Counting what the host hands to the params validator (jsonschema-rs holds the GIL and
cannot be interrupted: a test that a refusal comes before it counts its calls, never times
them)."""

from __future__ import annotations

import pytest


def count_validations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every params value the host hands to the validator from now on."""
    from dyntools.pipeline import toolmeta

    seen: list[object] = []
    real = toolmeta.validation_error

    def counted(validator: object, params: object) -> object:
        seen.append(params)
        return real(validator, params)

    monkeypatch.setattr(toolmeta, "validation_error", counted)
    return seen
