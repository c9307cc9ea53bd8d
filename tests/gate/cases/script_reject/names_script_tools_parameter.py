# technique: shadow `tools` with a function parameter, so tools.NAME(...) inside the function
#   calls whatever the caller passes instead of the host
# source: dyntools issue 31 (code mode: inputs, tools and result are reserved)
# family: names


def helper(tools):  # expect: DT308
    return tools.slugify_text(text="x")


result = helper({})
