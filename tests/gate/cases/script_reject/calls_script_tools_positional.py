# technique: positional arguments to a tool call (they have no names to send as params)
# source: dyntools issue 31 (tools.NAME(**params): keyword arguments only)
# family: calls
slug = tools.slugify_text("Hello")  # expect: DT406
result = slug
