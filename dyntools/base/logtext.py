"""A log event as text a person reads: what `--log-format text` prints on stderr.

    dyntools: warning: slugify_text v1 quarantined: unsigned: no trusted signature (v1
    carries none, and trusted keys are configured); dyntools review shows every detail

One line per event (a registry's summary of problems is one line per problem under a
heading), its subject first (tool and version), then what happened, its reason code and
reason, and the hint. Every value is escaped for the terminal: a reason can quote what a tool
or a file on disk holds. A formatted exception is reduced to its last line: the whole
traceback stays in the JSON rendering, which the audit file always gets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dyntools.base.terminal import terminal_safe

# Fields that say where and when, or that the line already shows in its own way.
_SHOWN = frozenset({"event", "level", "timestamp", "component", "tool", "version",
                    "reason_code", "reason", "hint", "exception", "problems", "count"})
MAX_VALUE_CHARS = 300
MAX_PROBLEM_LINES = 20


def render_text(level: str, event: Mapping[str, Any]) -> str:
    """The event as one line (or, for a registry's problems, a heading and a line each)."""
    if event.get("event") == "registry.problems":
        return _problems(level, event)
    head = f"dyntools: {level}: "
    subject = _subject(event)
    what = _what(str(event.get("event", "")))
    line = f"{head}{subject + ' ' if subject else ''}{what}"
    code, reason = event.get("reason_code"), event.get("reason")
    if code:
        line += f": {_value(code)}"
    if reason:
        line += f": {_value(reason)}"
    extra = [f"{key}={_value(value)}" for key, value in event.items()
             if key not in _SHOWN and value is not None]
    if extra:
        line += f" ({', '.join(extra)})"
    exception = event.get("exception")
    if exception:
        last = str(exception).strip().splitlines()[-1:] or [""]
        line += f"; {_value(last[0])}"
    hint = event.get("hint")
    if hint:
        line += f"; {_value(hint)}"
    return line


def _subject(event: Mapping[str, Any]) -> str:
    tool = event.get("tool")
    if not tool:
        return ""
    version = event.get("version")
    return _value(tool) + (f" v{_value(version)}" if version is not None else "")


def _what(name: str) -> str:
    """`registry.quarantined` -> `quarantined`; `pipeline.station` -> `station`."""
    return _value(name.rsplit(".", 1)[-1].replace("_", " ")) if name else "event"


def _problems(level: str, event: Mapping[str, Any]) -> str:
    problems = event.get("problems")
    listed = [str(p) for p in problems] if isinstance(problems, list) else []
    count = event.get("count")
    total = count if isinstance(count, int) and count >= len(listed) else len(listed)
    where = f" in registry {_value(event['registry'])}" if event.get("registry") else ""
    hint = f" ({_value(event['hint'])})" if event.get("hint") else ""
    lines = [f"dyntools: {level}: {total} problem(s){where}{hint}:"]
    lines += [f"  {_value(problem)}" for problem in listed[:MAX_PROBLEM_LINES]]
    if total > len(lines) - 1:
        lines.append(f"  ... and {total - (len(lines) - 1)} more")
    return "\n".join(lines)


def _value(value: Any) -> str:
    text = " ".join(str(value).split())
    if len(text) > MAX_VALUE_CHARS:
        text = text[:MAX_VALUE_CHARS] + "..."
    return terminal_safe(text)
