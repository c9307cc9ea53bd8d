# technique: index `tools` by a computed name, to call a tool the reviewer cannot see named
# source: dyntools issue 31 (tools.NAME(**params) is accepted only in that call form)
# family: calls
name = "slugify" + "_text"
slug = tools[name](text="x")  # expect: DT406
result = slug
