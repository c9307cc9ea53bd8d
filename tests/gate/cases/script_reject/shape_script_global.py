# technique: global in a script's function: the script's top-level names are locals of the
#   run the host wraps it in, so `global` names another variable than the reader sees
# source: dyntools issue 31 (promotion refuses global; the gate refuses it in scripts)
# family: shape
COUNT = 0


def bump():
    global COUNT  # expect: DT105
    COUNT += 1


bump()
result = {"count": COUNT}
