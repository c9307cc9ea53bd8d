# technique: the same attribute rules as tool files: a generator's frame in a script
# source: RestrictedPython CVE-2023-37271 (generator frame escape), here at a script's top level
# family: names
frames = (x for x in [1])
outer = frames.gi_frame.f_back  # expect: DT303 DT303
result = {"ok": True}
