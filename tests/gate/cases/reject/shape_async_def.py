# technique: async def and await
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a coroutine."""
NAME = "async_helper"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


async def helper(value):  # expect: DT104
    return value


def run(params):
    return {"coro": repr(helper(params["text"]))}
