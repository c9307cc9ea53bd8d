"""Probe which sandbox layers this machine can apply, by starting a real worker.

The report is what a worker actually achieved (its own `hello`), not a guess from kernel
versions: a layer is active only if the system call that applies it succeeded.
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

from dyntools.gate.policy import Policy, load_policy
from dyntools.sandbox.limits import LAYERS, SandboxLimits
from dyntools.sandbox.runner import EmptyDirectory, WorkerProcess
from dyntools.sandbox.spec import build_spec

_PROBE_SOURCE = '''"""Sandbox probe."""
NAME = "sandbox_probe"
DESCRIPTION = "Answers with an empty result."
PARAMS = {"type": "object"}


def run(params):
    return {}
'''


@cache
def probe_layers() -> dict[str, dict[str, Any]]:
    """`{layer: {"active": bool, "detail": str}}` for every layer in `LAYERS`, probed once per
    process with the default policy."""
    return probe_layers_with(load_policy())


def probe_layers_with(policy: Policy) -> dict[str, dict[str, Any]]:
    """The same probe with a given policy (not cached)."""
    return _probe(policy)[0]


def _probe(policy: Policy) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    """The layer report and the probe worker's start-up phases in milliseconds."""
    spec = build_spec(
        "/nonexistent/dyntools-sandbox-probe.py",
        module_name="dyntools_sandbox_probe",
        policy=policy,
        limits=SandboxLimits(timeout_s=10.0),
        source=_PROBE_SOURCE,
        allow_weaker_sandbox=True,  # the probe is dyntools' own code: it reports, below too
    )
    cwd = EmptyDirectory()
    try:
        worker = WorkerProcess(spec, cwd.path)
        try:
            layers = worker.start()
            worker.call({})
            startup = dict(worker.startup)
        finally:
            worker.kill()
    finally:
        cwd.remove()
    return {name: layers.get(name, {"active": False, "detail": "not reported"})
            for name in LAYERS}, startup


def doctor_report(policy: Policy | None = None) -> dict[str, Any]:
    """The layer probe plus the facts an operator needs to read it: whether the layers meet
    the default minimum tool code needs (sandbox/minimum.py), and what
    DYNTOOLS_ALLOW_WEAKER_SANDBOX says here."""
    from dyntools.sandbox.minimum import MINIMUM_TEXT, env_verdict, missing_for_minimum

    layers, startup = _probe(policy or load_policy())
    missing = missing_for_minimum(layers)
    allow_env = env_verdict()
    try:
        import pyseccomp

        seccomp_binding = f"pyseccomp {getattr(pyseccomp, '__version__', '?')}"
    except (ImportError, OSError) as exc:
        seccomp_binding = f"unavailable ({exc})"
    return {
        "python": sys.executable,
        "python_version": sys.version.split()[0],
        "platform": sys.platform,
        "seccomp_binding": seccomp_binding,
        "layers": layers,
        "worker_startup_ms": startup,
        "all_active": all(entry["active"] for entry in layers.values()),
        "minimum": {"rule": MINIMUM_TEXT, "met": not missing, "missing": list(missing),
                    # whether tool code runs here by default, or with the environment's opt-in
                    "tool_code_runs": not missing or allow_env["allows_weaker"]},
        "allow_weaker_sandbox_env": allow_env,
    }
