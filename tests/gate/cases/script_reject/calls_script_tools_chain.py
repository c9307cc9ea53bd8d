# technique: a member of a member: tools.call_tool.something(...)
# source: dyntools issue 31 (tools.NAME(**params) is accepted only in that call form)
# family: calls
value = tools.call_tool.copy(name="x")  # expect: DT406
result = {"ok": True}
