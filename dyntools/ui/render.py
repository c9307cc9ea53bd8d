"""Templates and the two helpers every piece of tool-controlled text goes through.

    env = environment()                       # Jinja2, autoescape on, StrictUndefined
    visible("a\u202eb")                       # 'a<span class="hidden-char" ...>U+202E</span>b'
    source_lines(text, findings)              # one SourceLine per line, findings marked

`visible` escapes the text (`markupsafe.escape`) and shows each bidi, invisible, control or
private-use character (the classes of `dyntools.base.hidden_text`, the same ones the terminal
escapes) as a labelled box holding its code point, so the character itself never reaches
the page: a right-to-left override cannot reorder what a reviewer reads, and a zero-width
character cannot hide. Templates never mark tool text `|safe`; the only Markup they receive
is built here, from escaped pieces.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from dyntools.base.hidden_text import NOT_PLAIN, hidden_character_class

TEMPLATES = Path(__file__).parent / "templates"
_SUSPECT = re.compile(NOT_PLAIN)
_WORD = re.compile(r"[A-Za-z0-9_]+")
_CLASS_WORDS = {"bidi": "bidirectional control", "invisible": "invisible",
                "control": "control", "private-use": "private-use"}


def _box(ch: str) -> str:
    kind = hidden_character_class(ch)
    if kind is None:
        return str(escape(ch))
    label = f"U+{ord(ch):04X}"
    return (f'<span class="hidden-char hidden-{kind}" title="{_CLASS_WORDS[kind]} character '
            f'{label}">{label}</span>')


def visible(value: object) -> Markup:
    """Tool-controlled text for the page: escaped, hidden characters shown as boxes."""
    if isinstance(value, Markup):
        return value  # already built here from escaped pieces
    text = "" if value is None else str(value)
    if _SUSPECT.search(text) is None:
        return escape(text)
    out: list[str] = []
    last = 0
    for match in _SUSPECT.finditer(text):
        out.append(str(escape(text[last:match.start()])))
        out.append(_box(match.group()))
        last = match.end()
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


def hidden_count(value: object) -> int:
    """How many characters of `value` `visible` shows as boxes."""
    text = "" if value is None else str(value)
    return sum(1 for m in _SUSPECT.finditer(text) if hidden_character_class(m.group()))


@dataclass(frozen=True, slots=True)
class SourceLine:
    number: int
    html: Markup
    findings: tuple[Mapping[str, Any], ...] = field(default=())


def split_lines(text: str) -> list[str]:
    """Lines as the gate numbers them (newline and CRLF only)."""
    lines = text.replace("\r\n", "\n").split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def source_lines(text: str, findings: Iterable[Mapping[str, Any]] = ()) -> list[SourceLine]:
    """Each line of `text` as Markup, the character at each finding's column (to its end
    column on the same line) wrapped in <mark>, and the line's findings beside it."""
    lines = split_lines(text)
    by_line: dict[int, list[Mapping[str, Any]]] = {}
    for finding in findings:
        at = _int(finding.get("line"), 1)
        by_line.setdefault(min(max(at, 1), max(len(lines), 1)), []).append(finding)
    out: list[SourceLine] = []
    for number, line in enumerate(lines, start=1):
        here = by_line.get(number, [])
        html = _marked(line, _ranges(line, number, here)) if here else visible(line)
        out.append(SourceLine(number, html, tuple(here)))
    return out


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _ranges(line: str, number: int, findings: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """Merged [start, end) character ranges (0-based) to mark on this line."""
    spans: list[list[int]] = []
    for finding in findings:
        start = max(_int(finding.get("col"), 1) - 1, 0)
        end_col = finding.get("end_col")
        if finding.get("end_line") == number and isinstance(end_col, int) and end_col - 1 > start:
            end = end_col - 1
        else:  # no end given: the name (or the one character) the finding points at
            word = _WORD.match(line, start) if start < len(line) else None
            end = word.end() if word else start + 1
        start = min(start, len(line))
        spans.append([start, max(min(end, len(line)), start + 1)])
    spans.sort()
    merged: list[list[int]] = []
    for span in spans:
        if merged and span[0] <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], span[1])
        else:
            merged.append(span)
    return merged


def _marked(line: str, ranges: list[list[int]]) -> Markup:
    parts: list[str] = []
    last = 0
    for start, end in ranges:
        parts.append(str(visible(line[last:start])))
        inner = line[start:end]
        # A finding past the end of the line (a missing token): mark an empty place.
        parts.append(f'<mark class="finding">{visible(inner) if inner else " "}</mark>')
        last = end
    parts.append(str(visible(line[last:])))
    return Markup("".join(parts))


def json_visible(value: Any) -> Markup:
    """A JSON value as readable text (non-ASCII kept), through `visible`."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return visible(text)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,  # every template, whatever its name
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["visible"] = visible
    env.filters["hidden_count"] = hidden_count
    env.filters["jsonv"] = json_visible
    env.filters["short"] = lambda digest: str(digest or "")[:12]
    return env
