# -*- coding: utf-7 -*-  # expect: DT003
# technique: coding cookie utf-7 (payload hidden in +ACI- style escapes)
# source: PEP 263 source encoding declarations; 'coding: utf-7' payload smuggling in pyjails
# family: hygiene
"""Attack case: utf-7 coding cookie."""

NAME = "cookie_utf7"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    text = "+ACIAKQ-"
    return {"text": text}
