"""What a tool name may be: a snake_case identifier of at most 64 characters.

The same rule guards the gate's NAME check, every registry path and every CLI argument, so a
name is refused (with a message quoting it) before any file is touched.
"""

from __future__ import annotations

import keyword

MAX_TOOL_NAME = 64
# [a-z][a-z0-9_]*, read with str methods: the pattern's compile was ~0.2 ms of every start-up.
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_SNAKE = _LOWER + "0123456789_"


def tool_name_problem(name: object) -> str | None:
    """Why `name` is not a valid tool name, or None when it is."""
    if not isinstance(name, str):
        return f"a tool name must be a string, got {type(name).__name__}"
    if not name:
        return "a tool name may not be empty"
    if len(name) > MAX_TOOL_NAME:
        return f"tool name {name[:20]!r}... is {len(name)} characters; the limit is {MAX_TOOL_NAME}"
    if not name.isascii() or name[0] not in _LOWER or name.strip(_SNAKE):
        return (
            f"tool name {name!r} must be snake_case: a lowercase ASCII letter, then lowercase "
            "letters, digits and underscores (no dots, slashes, dashes or spaces)"
        )
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return f"tool name {name!r} is a Python keyword"
    return None
