# technique: try/except* (RestrictedPython refuses TryStar since its CVE-2025-22153 fix, so the gate must too, as it does for match)
# source: RestrictedPython CVE-2025-22153 (try/except* type confusion, Python 3.11+)
# family: syntax
"""Attack case: except* accepted by the gate but refused by layer 2."""

NAME = "try_star_plain"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    try:  # expect: DT703
        raise ExceptionGroup("boom", [ValueError(params["text"])])
    except* ValueError as group:
        return {"n": len(group.exceptions)}
    return {"n": 0}
