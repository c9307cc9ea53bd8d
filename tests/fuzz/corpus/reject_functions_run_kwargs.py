# technique: run(**kwargs)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: functions
"""Attack case: run with **kwargs."""
NAME = "run_kwargs"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params, **extra):  # expect: DT602
    return {"ok": True}
