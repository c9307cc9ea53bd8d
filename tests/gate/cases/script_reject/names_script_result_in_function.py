# technique: bind `result` in a function: a local that never answers (the reader takes it for
#   the script's answer)
# source: dyntools issue 31 (code mode: result is bound at the top level)
# family: names


def compute():
    result = {"secret": 1}  # expect: DT308
    return result


result = compute()
