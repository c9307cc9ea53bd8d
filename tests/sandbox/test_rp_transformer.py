"""Issue 15: the host loads RestrictedPython's transformer without the rest of the package
(7 ms of a cold `dyntools call`), and leaves the real package importable, whole."""

from __future__ import annotations

import subprocess
import sys

CHECK = r'''
import sys
from dyntools.sandbox import restrict
assert not [n for n in sys.modules if n.startswith("RestrictedPython")], sorted(sys.modules)
base = restrict.RestrictingNodeTransformer
assert base.__name__ == "RestrictingNodeTransformer"
assert base.__module__ == "RestrictedPython.transformer"
import RestrictedPython
from RestrictedPython import compile_restricted, safe_builtins
from RestrictedPython.transformer import RestrictingNodeTransformer
# the same file, executed twice: the same methods, the same policy
assert sorted(vars(RestrictingNodeTransformer)) == sorted(vars(base))
assert RestrictingNodeTransformer.visit_Attribute.__code__.co_code == \
    base.visit_Attribute.__code__.co_code
assert compile_restricted("x = 1", "<t>", "exec") is not None
print("ok")
'''


def test_the_transformer_loads_alone_and_the_package_stays_whole():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_an_imported_package_is_used_as_it_is():
    code = ("import RestrictedPython.transformer as t; from dyntools.sandbox import restrict; "
            "assert restrict.RestrictingNodeTransformer is t.RestrictingNodeTransformer; "
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
