# technique: import urllib (the package, whose request submodule fetches URLs)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: the bare urllib package."""
import urllib  # expect: DT201

NAME = "bare_urllib"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"ok": True}
