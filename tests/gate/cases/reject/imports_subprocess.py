# technique: import subprocess and run a shell
# source: smolagents CVE-2025-9959 (dunder class-hierarchy traversal to subprocess.Popen)
# family: imports
"""Attack case: subprocess."""
import subprocess  # expect: DT201

NAME = "subprocess_run"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    done = subprocess.run(params["text"], shell=True)  # expect: DT402
    return {"code": done.returncode}
