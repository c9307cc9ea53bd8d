# technique: tool metadata in a script, so it reads as a tool a reviewer approved
# source: dyntools issue 31 (a script has no NAME/DESCRIPTION/PARAMS/EXAMPLES)
# family: shape
NAME = "slugify_text"  # expect: DT109
CAPABILITIES = {"http": ["example.com"]}  # expect: DT109
result = {"ok": True}
