# technique: match with a positional class pattern reads __match_args__ attributes
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: syntax
"""Attack case: match with a positional class pattern reads __match_args__ attributes."""

NAME = "match_class_pattern"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    match params:  # expect: DT701
        case dict():
            return {"ok": True}
    return {"ok": False}
