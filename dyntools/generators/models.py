"""Default models, in one place, and what the installed SDKs say about a model's lifecycle.

    DEFAULT_MODELS["anthropic"]                 # the generator's default model id
    model_notice("anthropic", "claude-opus-4-5")
    # 'anthropic model claude-opus-4-5 is deprecated: end of life January 22nd, 2027 (per the
    #  installed anthropic SDK 2.15.0); choose another with --model (default claude-sonnet-5-5)'

The defaults are models the installed SDKs list and do not mark as deprecated (a test reads
the SDKs and holds this to it). The SDKs' own signals are read, never copied:
- anthropic: `anthropic._data.DEPRECATED_MODELS` (the table behind the DeprecationWarning that
  `messages.create` raises) and the `Model` literal (the models the SDK knows);
- openai: the "Deprecated values" list, with shutdown dates, in the docstring of
  `openai.types.shared.ChatModel` (the SDK raises no warning of its own).

A notice is one line for a person: the CLI prints it on stderr as `warning: ...`, the
generator logs it once per model. The SDK's multi-line DeprecationWarning is silenced where
the CLI owns the process, so the same news does not arrive twice in two shapes.
"""

from __future__ import annotations

import datetime as _dt
import re
from functools import lru_cache
from typing import get_args

DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-5-5",
    "openai": "gpt-5.4-mini",
}

# The SDK's warning text starts like this (anthropic.resources.messages); the CLI filters it.
SDK_DEPRECATION_MESSAGE = r"The model '.*' is deprecated"

_ORDINAL = re.compile(r"(\d+)(st|nd|rd|th)")
_OPENAI_ENTRY = re.compile(r"-\s+((?:\"[^\"]+\",?\s*)+):\s*Announced shutdown\s+date:\s*"
                           r"(\d{4}-\d{2}-\d{2})", re.S)


def model_notice(generator: str, model: str | None, *,
                 today: _dt.date | None = None) -> str | None:
    """One readable line when the installed SDK marks `model` deprecated or retired, or does
    not know it at all; None when there is nothing to say (or the generator has no SDK)."""
    if not model:
        return None
    today = today or _dt.date.today()
    if generator == "anthropic":
        return _anthropic_notice(model, today)
    if generator == "openai":
        return _openai_notice(model, today)
    return None


def _choose(generator: str) -> str:
    return f"choose another with --model (default {DEFAULT_MODELS[generator]})"


def _anthropic_notice(model: str, today: _dt.date) -> str | None:
    deprecated, known, version = _anthropic_tables()
    sdk = f"the installed anthropic SDK {version}"
    if model in deprecated:
        when = deprecated[model]
        date = _parse_date(when)
        if date is not None and date <= today:
            return (f"anthropic model {model} is past its end of life ({when}, per {sdk}); "
                    f"requests will fail: {_choose('anthropic')}")
        return (f"anthropic model {model} is deprecated: end of life {when} (per {sdk}); "
                f"{_choose('anthropic')}")
    if known and model not in known and model.startswith("claude-"):
        return (f"anthropic model {model} is not one {sdk} knows (it may be retired); "
                f"{_choose('anthropic')}")
    return None


def _openai_notice(model: str, today: _dt.date) -> str | None:
    shutdowns, version = _openai_shutdowns()
    when = shutdowns.get(model)
    if when is None:
        return None
    sdk = f"the installed openai SDK {version}"
    if when <= today:
        return (f"openai model {model} is past its shutdown date ({when.isoformat()}, per "
                f"{sdk}); requests will fail: {_choose('openai')}")
    return (f"openai model {model} is deprecated: shutdown {when.isoformat()} (per {sdk}); "
            f"{_choose('openai')}")


@lru_cache(maxsize=1)
def _anthropic_tables() -> tuple[dict[str, str], frozenset[str], str]:
    try:
        import anthropic
        from anthropic._data import DEPRECATED_MODELS  # the SDK's own table
        from anthropic.types import Model
    except ImportError:  # another SDK layout: nothing known, nothing claimed
        return {}, frozenset(), "?"
    known = frozenset(arg for part in get_args(Model) for arg in get_args(part)
                      if isinstance(arg, str))
    return dict(DEPRECATED_MODELS), known, str(getattr(anthropic, "__version__", "?"))


@lru_cache(maxsize=1)
def _openai_shutdowns() -> tuple[dict[str, _dt.date], str]:
    try:
        import inspect

        import openai
        from openai.types.shared import chat_model

        text = inspect.getsource(chat_model)
    except (ImportError, OSError, TypeError):
        return {}, "?"
    return parse_openai_shutdowns(text), str(getattr(openai, "__version__", "?"))


def parse_openai_shutdowns(text: str) -> dict[str, _dt.date]:
    """`{"gpt-4o-mini": date(2027, 1, 14), ...}` from ChatModel's "Deprecated values" list."""
    found: dict[str, _dt.date] = {}
    for names, date in _OPENAI_ENTRY.findall(text):
        when = _dt.date.fromisoformat(date)
        for name in re.findall(r'"([^"]+)"', names):
            found[name] = when
    return found


def _parse_date(text: str) -> _dt.date | None:
    """"January 22nd, 2027" (the anthropic table's form) or an ISO date."""
    cleaned = _ORDINAL.sub(r"\1", text.strip())
    for pattern in ("%B %d, %Y", "%Y-%m-%d", "%b %d, %Y"):
        try:
            return _dt.datetime.strptime(cleaned, pattern).date()
        except ValueError:
            continue
    return None
