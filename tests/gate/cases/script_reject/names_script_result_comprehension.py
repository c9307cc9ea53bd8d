# technique: a comprehension variable named result (its own scope: it never answers)
# source: dyntools issue 31 (code mode: result is bound at the top level)
# family: names
values = [result for result in range(3)]  # expect: DT308
result = {"values": values}
