"""The page's writes: each one the very call the CLI command makes, nothing more.

    approve   dyntools approve NAME V   -> Dyntools.approve (verification in the sandbox first)
    reject    dyntools reject NAME V    -> Registry.decide(..., "reject")
    activate  dyntools activate NAME V  -> Registry.activate (re-checked)
    rollback  dyntools rollback NAME V  -> Registry.rollback
    retire    dyntools retire NAME V    -> Registry.decide(..., "retire")

Every one is signed with the page's key (`dyntools ui --sign-key FILE`, else
DYNTOOLS_SIGNING_KEY) when it has one, and so joins the tool's decision chain; with trusted
keys configured, a page without one of them decides nothing (SigningKeyRequired).

Form fields are checked here (lengths, the examples' JSON) and everything else is left to
those functions, which raise the same typed errors the CLI prints; the page shows them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dyntools.errors import UsageError
from dyntools.pipeline.toolmeta import parse_json_text
from dyntools.pipeline.verify import VerificationReport
from dyntools.registry.core import default_approver
from dyntools.registry.records import VersionRecord, require_valid_name

if TYPE_CHECKING:
    from dyntools.ui.state import UiState

ACTIONS = ("approve", "reject", "activate", "rollback", "retire")
MAX_REASON_CHARS = 2000
MAX_BY_CHARS = 200
MAX_EXAMPLES = 50
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class Outcome:
    action: str
    record: VersionRecord
    current: int | None
    verification: VerificationReport | None = None


def _field(form: Mapping[str, str], key: str, limit: int) -> str | None:
    value = form.get(key, "")
    if not isinstance(value, str):
        raise UsageError(f"{key} must be text")
    value = value.strip()
    if len(value) > limit:
        raise UsageError(f"{key} is longer than {limit} characters")
    return value or None


def parse_examples(text: str | None) -> list[dict[str, Any]]:
    """Extra examples, one JSON object a line (what `--example` takes, repeated)."""
    examples: list[dict[str, Any]] = []
    for number, line in enumerate((text or "").splitlines(), start=1):
        if not line.strip():
            continue
        value = parse_json_text(line, f"example on line {number}")
        if not isinstance(value, dict):
            raise UsageError(f"example on line {number} must be a JSON object "
                             '{"params": {...}, "result": {...}}')
        examples.append(value)
        if len(examples) > MAX_EXAMPLES:
            raise UsageError(f"at most {MAX_EXAMPLES} extra examples")
    return examples


def _known(ui: UiState, name: str, version: int) -> None:
    """UnknownTool / UnknownVersion unless `name` has a recorded or dropped-in `version`."""
    state = ui.registry.tool(name)
    if version not in state.records and all(u.version != version for u in state.unrecorded):
        ui.registry.get(name, version)


def decide(ui: UiState, action: str, name: str, version: int,
           form: Mapping[str, str]) -> Outcome:
    """Run one decision; raises the DyntoolsError the CLI would print."""
    require_valid_name(name)
    if action not in ACTIONS:
        raise UsageError(f"unknown decision {action!r}")
    reason = _field(form, "reason", MAX_REASON_CHARS)
    by = _field(form, "by", MAX_BY_CHARS)
    registry = ui.registry
    report = None
    if action == "approve":
        examples = parse_examples(_field(form, "examples", 64 * 1024))
        # The reviewer approves the bytes the page showed, never what the file holds by the
        # time the button is pressed (a dropped-in file is read again to be approved).
        shown = _field(form, "sha256", 64)
        if shown is None or not _SHA256.fullmatch(shown):
            _known(ui, name, version)  # an unknown version is that first (a 404)
            raise UsageError("an approval names the SHA-256 of the source the page showed "
                             "(the sha256 field); reload the version's page")
        record, report = ui.dyntools.approve(
            name, version, examples=examples, contract_change=form.get("contract_change") == "1",
            by=by, reason=reason, activate=form.get("activate", "1") == "1",
            expected_sha256=shown)
    elif action == "reject":
        record = registry.decide(name, version, "reject", reason=reason, by=by,
                                 signer=ui.signer)
    elif action == "activate":
        record = registry.activate(name, version, signer=ui.signer,
                                   decision={"by": by or default_approver(), "reason": reason})
    elif action == "rollback":
        record = registry.rollback(name, version, signer=ui.signer,
                                   decision={"by": by or default_approver(), "reason": reason})
    else:
        record = registry.decide(name, version, "retire", reason=reason, by=by,
                                 signer=ui.signer)
    return Outcome(action, record, registry.tool(name).current, report)
