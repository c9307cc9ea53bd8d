# coding=latin-1  # expect: DT003
# technique: coding cookie latin-1 (reviewer and interpreter decode differently)
# source: PEP 263 source encoding declarations; 'coding: utf-7' payload smuggling in pyjails
# family: hygiene
"""Attack case: latin-1 coding cookie."""

NAME = "cookie_latin1"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"ok": True}
