# technique: a runtime guard (_getiter_) shadowed by a for statement's target
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: a guard rebound by a for loop."""

NAME = "guard_for"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    total = 0
    for _getiter_ in [iter]:  # expect: DT301
        total += 1
    return {"n": total}
