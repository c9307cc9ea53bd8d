# technique: a script that never binds result: the caller gets no answer it can trust
# source: dyntools issue 31 (a script that never binds result is a finding)
# family: shape
# expect-at: 1 DT110
value = tools.slugify_text(text=inputs["title"])
print(value)
