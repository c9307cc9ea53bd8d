# technique: hold `tools` as a value, to pass it on or read its other members later
# source: dyntools issue 31 (tools.NAME(**params) is accepted only in that call form)
# family: calls
handle = tools  # expect: DT406
result = {"ok": True}
