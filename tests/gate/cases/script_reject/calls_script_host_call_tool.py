# technique: skip the tools.NAME form and call the host stub directly with a computed name
# source: dyntools issue 31 (a script declares no capabilities; host.call_tool is a tool's)
# family: calls
import host

name = "".join(["slug", "ify_text"])
value = host.call_tool(name, {"text": "x"})  # expect: DT403
result = value
