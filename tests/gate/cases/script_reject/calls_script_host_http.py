# technique: reach the network through the host's HTTP stub from a script
# source: dyntools issue 31 (a script declares no capabilities)
# family: calls
from host import http_get  # expect: DT403

page = http_get("https://example.com/")
result = page
