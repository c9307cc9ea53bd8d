# technique: `tools` as a value inside a comprehension
# source: dyntools issue 31 (tools.NAME(**params) is accepted only in that call form)
# family: calls
handles = [tools for _ in range(2)]  # expect: DT406
result = {"n": len(handles)}
