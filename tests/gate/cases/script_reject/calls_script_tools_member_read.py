# technique: read tools.NAME without calling it, to call the stub later with other arguments
# source: dyntools issue 31 (tools.NAME(**params) is accepted only in that call form)
# family: calls
slug = tools.slugify_text  # expect: DT406
result = {"ok": True}
