"""RestrictedPython's `transformer` module, loaded without the rest of the package.

The host needs one class of RestrictedPython: `RestrictingNodeTransformer`. Importing it the
ordinary way runs the package's `__init__`, which imports everything else RestrictedPython
has (compile, Guards, Limits, Utilities with `random`, PrintCollector, Eval, and `platform`
through `_compat`): 7 ms of a cold `dyntools call`, against under 2 ms for the one module.

`load()` executes the very same `transformer.py` file, under a placeholder package that
exists only while it loads: the placeholder and whatever was loaded under it leave
`sys.modules` afterwards, so a later `import RestrictedPython` (the bench's reference
policy, a host application) gets the real package, whole. If the module cannot be loaded
that way (a RestrictedPython whose transformer reads names from the package), or the
package is already imported, the ordinary import is used.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

PACKAGE = "RestrictedPython"
MODULE = "RestrictedPython.transformer"


def load() -> Any:
    """The `RestrictedPython.transformer` module."""
    if PACKAGE in sys.modules:
        return importlib.import_module(MODULE)
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        return importlib.import_module(MODULE)  # raises the ordinary ImportError
    placeholder = types.ModuleType(PACKAGE)
    placeholder.__path__ = locations
    sys.modules[PACKAGE] = placeholder
    try:
        module = importlib.import_module(MODULE)
    except ImportError:
        module = None
    finally:
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]
    return module if module is not None else importlib.import_module(MODULE)
