# technique: rebind the host-given `inputs`, so a reviewer reading "inputs" reads something else
# source: dyntools issue 31 (code mode: inputs, tools and result are reserved)
# family: names
inputs = {"title": "forged"}  # expect: DT308
result = {"ok": True}
