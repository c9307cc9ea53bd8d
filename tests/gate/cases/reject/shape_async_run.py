# technique: run itself is a coroutine
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
# expect-at: 1 DT601
"""Attack case: async run."""
NAME = "async_run"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


async def run(params):  # expect: DT104
    return {"ok": True}
