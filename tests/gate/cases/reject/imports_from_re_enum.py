# technique: from re import enum (a submodule imported as a member)
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: from re import enum."""
from re import enum  # expect: DT207

NAME = "from_re_enum"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"flags": repr(enum.Enum)}
