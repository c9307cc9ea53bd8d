# technique: rebind `tools` to a value of the script's own, so that later tools.NAME(...) calls
#   go somewhere the host never sees (or the host's rewrite meets a name it did not bind)
# source: dyntools issue 31 (code mode: inputs, tools and result are reserved)
# family: names
tools = {"slugify_text": print}  # expect: DT308
result = {"ok": True}
