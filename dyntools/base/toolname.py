"""What a tool name may be: a snake_case identifier of at most 64 characters.

The same rule guards the gate's NAME check, every registry path and every CLI argument, so a
name is refused (with a message quoting it) before any file is touched.
"""

from __future__ import annotations

import keyword
import re

MAX_TOOL_NAME = 64
_SNAKE_CASE = re.compile(r"[a-z][a-z0-9_]*")


def tool_name_problem(name: object) -> str | None:
    """Why `name` is not a valid tool name, or None when it is."""
    if not isinstance(name, str):
        return f"a tool name must be a string, got {type(name).__name__}"
    if not name:
        return "a tool name may not be empty"
    if len(name) > MAX_TOOL_NAME:
        return f"tool name {name[:20]!r}... is {len(name)} characters; the limit is {MAX_TOOL_NAME}"
    if _SNAKE_CASE.fullmatch(name) is None:
        return (
            f"tool name {name!r} must be snake_case: a lowercase ASCII letter, then lowercase "
            "letters, digits and underscores (no dots, slashes, dashes or spaces)"
        )
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return f"tool name {name!r} is a Python keyword"
    return None
