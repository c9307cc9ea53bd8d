# technique: import urllib, then reach urllib.request through the package
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: urllib.request through the bare urllib package."""
import urllib

NAME = "bare_urllib"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    page = urllib.request.urlopen(params["text"])  # expect: DT201
    return {"ok": page is not None}
