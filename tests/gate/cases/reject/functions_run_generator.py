# technique: run is a generator
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: functions
"""Attack case: run yields."""
NAME = "run_generator"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):  # expect: DT603
    yield {"ok": True}
