# technique: call a "tool" whose name is no tool name (upper case, as a class would be)
# source: dyntools issue 31 (tool names are snake_case identifiers)
# family: calls
value = tools.Popen(args="sh")  # expect: DT406
result = value
