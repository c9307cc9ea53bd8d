#!/usr/bin/env python3
# vim: set fileencoding=rot13 :  # expect: DT003
# technique: coding cookie on line 2 (rot13 / any non-UTF-8 codec)
# source: PEP 263 source encoding declarations; 'coding: utf-7' payload smuggling in pyjails
# family: hygiene
"""Attack case: rot13 coding cookie."""

NAME = "cookie_rot13"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"ok": True}
