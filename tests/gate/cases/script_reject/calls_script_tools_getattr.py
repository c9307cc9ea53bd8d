# technique: getattr on `tools` with a computed name
# source: dyntools issue 31; the getattr family of sandbox escapes
# family: calls
slug = getattr(tools, "call_tool")("x", {})  # expect: DT401 DT406
result = slug
