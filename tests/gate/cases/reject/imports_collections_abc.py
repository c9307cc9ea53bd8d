# technique: module traversal: collections.abc held as a value
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: module traversal: collections.abc."""
import collections

NAME = "collections_abc"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    abc = collections.abc  # expect: DT206
    return {"abc": repr(abc)}
