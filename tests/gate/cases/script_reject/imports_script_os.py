# technique: the same module allow-list as tool files: os in a script
# source: dyntools issue 31 (same gate and policy as tool files)
# family: imports
import os  # expect: DT201

result = {"cwd": os.getcwd()}
