"""Which names a tool file may bind and read: the underscore rule and the reserved set.

One definition for the gate (layer 1) and the RestrictedPython policy (layer 2), so both
layers agree on every name.

A name starting with one underscore is an ordinary name when the tool binds it itself:
`_`, and `_` followed by a letter or digit, then any word characters, not ending in `_`
(`_helper`, `_dfs`, `_INT_MAX`). Models write private helpers and module tables this way.

Reserved, and refused wherever it is bound or read:
- every name that starts and ends with an underscore (but `_` itself): the sandbox's runtime
  guards (`_getattr_`, `_write_`, `_getitem_`, `_getiter_`, `_apply_`, `_call_`, `_args_`,
  `_slice_`, ...), RestrictedPython's own (`_print_`, `_inplacevar_`,
  `_iter_unpack_sequence_`, `_unpack_sequence_`) and Python's dunders (`__name__`,
  `__builtins__`, `__import__`). A tool that rebinds or shadows a guard (a parameter, a
  comprehension variable, an `except ... as` target, an import alias named `_getattr_`)
  would run its own function in place of the check;
- `_print`, RestrictedPython's print collector;
- `_tmp` and digits, the temporaries RestrictedPython's transformer names
  (`gen_tmp_name`): a tool name of that spelling would meet values the transform put there
  unchecked.

Names starting with two underscores are not reserved but refused all the same (they are
the dunders' family, and Python mangles them inside classes).

`tests/sandbox/test_reserved_names.py` derives the reserved set from the worker's own name
lists (the guards, the names a tool module's globals hold) and RestrictedPython's, so a guard
added later cannot be shadowed.
"""

from __future__ import annotations

# Reserved names the shapes below do not cover.
RESERVED_NAMES = frozenset({"_print", "__builtins__", "__import__"})
_TEMPORARY_PREFIX = "_tmp"


def is_reserved(name: str) -> bool:
    """A name the sandbox or Python itself gives meaning to: never a tool's."""
    if name == "_" or name[:1] != "_":
        return False
    if name.endswith("_") or name in RESERVED_NAMES:
        return True
    tail = name[len(_TEMPORARY_PREFIX):]
    return name.startswith(_TEMPORARY_PREFIX) and tail.isascii() and tail.isdigit()


def underscore_problem(name: str) -> str | None:
    """Why a name starting with an underscore may not be a tool's (None when it may, and
    for every name that does not start with one)."""
    if name[:1] != "_" or name == "_":
        return None
    if name[1:2] == "_":
        return ("starts with two underscores: those are Python's and the sandbox's names "
                "(a private name starts with one, then a letter or digit: _helper)")
    if name.endswith("_"):
        return ("starts and ends with an underscore: names of that shape are reserved for "
                "the sandbox's runtime guards (_getattr_, _write_, ...)")
    if is_reserved(name):
        return "is reserved for the sandbox's own use"
    if not (name[1].isascii() and name[1].isalnum()):
        return "must start with one underscore and then a letter or digit (_helper)"
    return None
