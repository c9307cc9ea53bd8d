"""Layer reports the tool cannot touch (issue 9, finding 2): the worker reports before any
tool code runs, the host believes a layer only as far as /proc shows it, and a required layer
that is missing stops the worker before the tool's module body runs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dyntools.errors import LayerUnavailable
from dyntools.sandbox import LAYERS, SandboxLimits, run_once
from dyntools.sandbox.kernel_view import VERIFIED_BY_KERNEL, kernel_checks, verified_layers
from dyntools.sandbox.testing import PYTHON_LAYERS, run_unchecked

# Tool code with the Python layer off: it walks up to the worker's own frames and objects,
# rewrites the report the worker holds, and writes forged report frames on the protocol pipe,
# both in the module body (default arguments run code there) and during the call.
FORGER = '''
import json
import sys

LAYER_NAMES = {layers!r}


def forge():
    forged = {{name: [True, "forged"] for name in LAYER_NAMES}}
    frame = sys._getframe(0)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if isinstance(value, dict) and "seccomp" in value:
                value.update(forged)
            channel = getattr(value, "channel", None)
            if channel is not None:
                text = json.dumps({{"hello": {{"layers": forged, "marks": {{}}}},
                                   "ready": {{}}, "ok": {{"layers": forged}}}})
                channel.send_text(text)
        frame = frame.f_back
    return forged


def run(params, forged=forge()):
    forge()
    return {{"layers": forged}}
'''


def _forger(tool) -> object:
    return tool(FORGER.format(layers=list(LAYERS)))


def test_a_process_without_layers_is_seen_as_such_whatever_it_claims():
    """The host's view of a plain process that claims every layer: every layer the kernel
    shows is inactive, and the detail says the kernel disagrees."""
    plain = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        claim = {name: [True, "claimed"] for name in LAYERS}
        view = verified_layers(plain.pid, claim)
    finally:
        plain.kill()
        plain.wait()
    for name in VERIFIED_BY_KERNEL:
        assert view[name]["active"] is False, (name, view[name])
        assert "kernel disagrees" in view[name]["detail"]
        assert view[name]["verified"] == "kernel"
    # Landlock and the Python layers leave no trace in /proc: the report is all there is.
    assert view["landlock_fs"] == {"active": True, "detail": "claimed", "verified": "report"}


def test_a_locked_down_worker_is_confirmed_by_the_kernel():
    from dyntools.sandbox import probe_layers

    layers = probe_layers()
    for name in VERIFIED_BY_KERNEL:
        assert layers[name]["active"], (name, layers[name])
        assert layers[name]["verified"] == "kernel"
        assert "[kernel: " in layers[name]["detail"]


def test_kernel_checks_of_an_unreadable_process_fail_closed():
    checks = kernel_checks(2**22 + 12345)  # no such pid
    assert set(checks) == set(VERIFIED_BY_KERNEL)
    assert not any(seen for seen, _ in checks.values())


def test_an_honest_tool_with_a_required_missing_layer_gets_layer_unavailable(tool, policy):
    path = tool('''
        def run(params):
            return {"ran": True}
        ''')
    with pytest.raises(LayerUnavailable) as info:
        run_once(path, {}, policy=policy, require_layers=frozenset({"seccomp"}),
                 _skip_layers=frozenset({"seccomp"}))
    assert info.value.details["missing"] == ["seccomp"]
    outcome = run_unchecked(path, {}, disable={"mountns"}, require={"mountns"})
    assert outcome["reason"] == "layer_unavailable"
    assert outcome["layers"]["mountns"]["active"] is False


@pytest.mark.layer(None)
@pytest.mark.parametrize("missing", ["seccomp", "mountns", "userns", "capabilities",
                                     "landlock_fs"])
def test_a_forging_tool_cannot_make_a_required_missing_layer_look_active(tool, missing):
    """Each case switches its layer off itself and proves the host's view of it, not what the
    layer stops: a copy with the layer switched off again would change nothing (layer(None),
    tests/support/layer_mutants.py)."""
    path = _forger(tool)
    outcome = run_unchecked(path, {}, disable=PYTHON_LAYERS | {missing}, require={missing})
    assert outcome["ok"] is False
    assert outcome["reason"] == "layer_unavailable", outcome
    assert outcome["layers"][missing]["active"] is False


def test_a_forging_tool_does_not_change_the_hosts_view(tool):
    """Not required: the tool runs, forges frames in its module body and its call, rewrites
    the worker's report object; the view the host took before any tool code ran stands."""
    path = _forger(tool)
    outcome = run_unchecked(path, {}, disable=PYTHON_LAYERS | {"seccomp"})
    assert outcome["layers"]["seccomp"]["active"] is False
    assert outcome["layers"]["restricted"]["active"] is False
    # The forged frames broke the protocol: the worker is discarded, never believed.
    assert outcome["ok"] is False
    assert outcome["reason"] in {"sandbox_violation", "worker_crashed"}, outcome


def test_the_report_is_sent_before_the_module_body_runs(tool):
    """A module body that never ends does not delay the layer report; with a required
    layer missing, it never starts (the host answers the report with a kill, not "go")."""
    path = tool('''
        def forever():
            while True:
                pass


        def run(params, spin=forever()):
            return {}
        ''')
    outcome = run_unchecked(path, {}, disable={"seccomp"}, require={"seccomp"},
                            limits=SandboxLimits(timeout_s=1.0, startup_timeout_s=30.0))
    assert outcome["reason"] == "layer_unavailable"
