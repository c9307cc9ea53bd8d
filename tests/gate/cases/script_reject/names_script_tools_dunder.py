# technique: reach the host module's internals through the name the host binds to it
# source: dyntools issue 31; the module-escape family of RestrictedPython's CVEs
# family: names
cls = tools.__class__  # expect: DT302
result = {"ok": True}
