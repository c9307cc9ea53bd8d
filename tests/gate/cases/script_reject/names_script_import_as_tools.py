# technique: bind `tools` by an import alias
# source: dyntools issue 31 (code mode: inputs, tools and result are reserved)
# family: names
import json as tools  # expect: DT308

result = {"ok": True}
