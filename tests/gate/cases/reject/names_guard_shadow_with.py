# technique: a runtime guard (_write_) shadowed by a with statement's target
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: a guard rebound by with ... as."""
import decimal

NAME = "guard_with"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    with decimal.localcontext() as _write_:  # expect: DT301
        return {"n": str(decimal.Decimal(1) / 3)}
