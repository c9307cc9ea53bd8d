"""What a version's recorded decision may claim about its signature, for people to read.

A decision stamped on a version (`{"action", "by", "time", "reason", "signed_by_key"}`) is a
plain manifest field: anyone who can write the manifest can add one, with any `signed_by_key`.
Threat: `review` and `show` printed such a forged decision as "(signed)", so a registry writer
with no key could make a reviewer believe a trusted person had vouched for a version.

So a decision is shown as signed only when a record of the tool's decision chain vouches for
it: a record that verified (well formed, linked, its signature holding under its key), signed
by the key the decision names, with the decision's `by`, `time` and `reason`, naming the
decision's version. That needs trusted keys (the chain is checked only with them); without
them the mark says the signature was not checked.

    mark = decision_mark(decision, version, state.chain, trusted_keys)
    mark.code   # "signed", "untrusted_key", "not_checked", "does_not_verify" or None
    mark.text   # " (signed)", " (signature not checked: no trusted keys)", ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from dyntools.registry.chain import ChainVerdict

SIGNED = "signed"
UNTRUSTED_KEY = "untrusted_key"
NOT_CHECKED = "not_checked"
DOES_NOT_VERIFY = "does_not_verify"

_TEXT = {
    SIGNED: " (signed)",
    UNTRUSTED_KEY: " (signed by a key that is no longer trusted)",
    NOT_CHECKED: " (signature not checked: no trusted keys)",
    DOES_NOT_VERIFY: " (claims a signature that does not verify: no verified chain record "
                     "vouches for it)",
}


class DecisionMark(NamedTuple):
    code: str | None  # None: the decision claims no signature

    @property
    def text(self) -> str:
        return _TEXT.get(self.code or "", "")

    @property
    def is_problem(self) -> bool:
        """A claimed signature that nothing verified, with trusted keys configured."""
        return self.code == DOES_NOT_VERIFY


def decision_mark(decision: Mapping[str, Any], version: int, chain: ChainVerdict | None,
                  trusted: frozenset[str] | None) -> DecisionMark:
    """What `decision`, recorded on `version`, may say about its signature. Fails closed: a
    decision this cannot judge is one that does not verify."""
    try:
        key = decision.get("signed_by_key")
        if key is None:
            return DecisionMark(None)
        if trusted is None:
            return DecisionMark(NOT_CHECKED)
        if chain is None:
            return DecisionMark(DOES_NOT_VERIFY)
        for record in chain.records:
            if (record.key == key and version in record.versions
                    and record.by == decision.get("by")
                    and record.time == decision.get("time")
                    and record.reason == decision.get("reason")):
                return DecisionMark(SIGNED if key in trusted else UNTRUSTED_KEY)
        return DecisionMark(DOES_NOT_VERIFY)
    except Exception:  # an object this does not know: not verified
        return DecisionMark(DOES_NOT_VERIFY)
