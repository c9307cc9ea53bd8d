# technique: from collections import abc, then an ABC held as a value
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: from collections import abc."""
from collections import abc

NAME = "from_collections_abc"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"abc": repr(abc.Callable)}  # expect: DT210
