"""What a model reads is what a reviewer reads: hidden text in NAME, DESCRIPTION, PARAMS and
EXAMPLES.

Source hygiene (hygiene.py) reads the file's characters, but a pure-ASCII file can still
spell U+202E or a Unicode TAG character as an escape (`"\\u202e"`, `"\\U000e0041"`): the
reviewer sees the escape, while MCP clients and models receive the character itself in
`tools/list`. So every string of the metadata constants (dict keys included) is checked as
evaluated, with the source's own classes, and refused at the literal that holds it.

Tab, newline and, in EXAMPLES, carriage return are text: an example of a tool that
normalises line endings holds `"a\\r\\nb"`. NAME, DESCRIPTION and PARAMS keep refusing a
carriage return: they reach `tools/list` and terminals verbatim, where a lone one rewrites
the line it ends. Every terminal print escapes it (`\\r`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from dyntools.base.hidden_text import NOT_PLAIN, hidden_character_class

Report = Callable[[ast.AST, str, str], None]

METADATA_CONSTANTS = ("NAME", "DESCRIPTION", "PARAMS", "EXAMPLES")
CODES = {"bidi": "DT510", "invisible": "DT511", "control": "DT512", "private-use": "DT513"}
_WHAT = {
    "bidi": "a bidirectional control character",
    "invisible": "an invisible character",
    "control": "a control character",
    "private-use": "a private-use or non-character code point",
}
# In JSON text (json.dumps with ensure_ascii=False) C0 controls other than tab and newline
# are written as \b, \f, \r or \u00XX, everything else as itself. A backslash of the text
# itself followed by one of those letters counts too: that only costs the walk.
_JSON_CONTROL_ESCAPES = ("\\u000", "\\u001", "\\b", "\\f", "\\r")


def has_hidden_text(json_text: str) -> bool:
    """False when no string in the JSON text of the metadata can hold a character of a
    hidden class (then check_metadata_text would find nothing and need not run)."""
    if "\\" in json_text and any(escape in json_text for escape in _JSON_CONTROL_ESCAPES):
        return True
    if json_text.isascii() and json_text.isprintable():
        return False
    return any(hidden_character_class(ch) is not None
               for ch in set(json_text) if not " " <= ch <= "~")


# Characters each constant holds as text although their class is "control".
_TEXT = {name: "\t\n\r" if name == "EXAMPLES" else "\t\n" for name in METADATA_CONSTANTS}


def check_metadata_text(nodes: dict[str, ast.expr], report: Report) -> None:
    """Report every string (key or value) in the metadata constants' literals that holds a
    character of a hidden class; one finding per literal and class."""
    for name in METADATA_CONSTANTS:
        node = nodes.get(name)
        if node is None:
            continue
        text = _TEXT[name]
        stack: list[tuple[ast.AST, str]] = [(node, name)]
        while stack:
            item, where = stack.pop()
            if isinstance(item, ast.Constant):
                if isinstance(item.value, str):
                    _check_string(item, item.value, where, text, report)
            elif isinstance(item, ast.Dict):
                for key, value in reversed(list(zip(item.keys, item.values, strict=True))):
                    label = where
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        label = f"{where}[{_short(key.value)}]"
                        _check_string(key, key.value, f"a key in {where}", text, report)
                    stack.append((value, label))
            elif isinstance(item, ast.List | ast.Tuple | ast.Set):
                stack.extend((element, f"{where}[{index}]")
                             for index, element in reversed(list(enumerate(item.elts))))


def _check_string(node: ast.AST, text: str, where: str, plain: str, report: Report) -> None:
    """`plain`: the characters this constant holds as text (tab, newline; CR in EXAMPLES)."""
    seen: set[str] = set()
    for match in re.finditer(NOT_PLAIN, text):
        ch = match.group()
        kind = hidden_character_class(ch)
        if kind is None or kind in seen or ch in plain:
            continue
        seen.add(kind)
        import unicodedata  # only a finding names its character

        name = unicodedata.name(ch, "")
        report(node, CODES[kind],
               f"{where} holds {_WHAT[kind]}, U+{ord(ch):04X}{' ' + name if name else ''}, "
               f"at character "
               f"{match.start() + 1} of the string: MCP clients and models read it, a reviewer "
               "of the file does not see it; remove it or spell the text without it")


def _short(key: str) -> str:
    text = repr(key.encode("ascii", "backslashreplace").decode("ascii"))
    return text if len(text) <= 40 else text[:35] + "...'"
