"""Generators: where a tool's source text comes from.

    Generator            the protocol: id, model, accepts_feedback, generate(spec)
    AnthropicGenerator   the Messages API through the `anthropic` client
    OpenAICompatGenerator chat completions through the `openai` client (OpenAI, Ollama, vLLM, ...)
    FileGenerator        a file or stdin written by a person or another agent
    OfflineGenerator     built-in templates (no key, no network)
    generate_gated       generate, gate, and retry with the findings as feedback
    build_generator      a generator from CLI-style options ("anthropic", model=..., ...)
    GENERATORS           the table of generator names (factory.py): every list of names reads it

Names are resolved on first use (as in `dyntools/__init__.py`): `dyntools call`, which never
generates, imports none of this. The model SDKs are imported only when a network generator
makes its first call.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from dyntools.generators.anthropic import AnthropicConfig, AnthropicGenerator
    from dyntools.generators.base import GateFeedback, GeneratedSource, Generator, ToolSpec
    from dyntools.generators.factory import (
        GENERATOR_NAMES,
        GENERATORS,
        GeneratorKind,
        build_generator,
    )
    from dyntools.generators.file import FileGenerator
    from dyntools.generators.loop import GatedSource, generate_gated
    from dyntools.generators.offline import OfflineGenerator, template_names
    from dyntools.generators.openai_compat import OpenAICompatConfig, OpenAICompatGenerator

__all__ = [
    "GENERATORS",
    "GENERATOR_NAMES",
    "AnthropicConfig",
    "AnthropicGenerator",
    "FileGenerator",
    "GateFeedback",
    "GatedSource",
    "GeneratedSource",
    "Generator",
    "GeneratorKind",
    "OfflineGenerator",
    "OpenAICompatConfig",
    "OpenAICompatGenerator",
    "ToolSpec",
    "build_generator",
    "generate_gated",
    "template_names",
]

_HOMES = {
    "AnthropicConfig": "anthropic",
    "AnthropicGenerator": "anthropic",
    "GateFeedback": "base",
    "GeneratedSource": "base",
    "Generator": "base",
    "ToolSpec": "base",
    "GENERATORS": "factory",
    "GENERATOR_NAMES": "factory",
    "GeneratorKind": "factory",
    "build_generator": "factory",
    "FileGenerator": "file",
    "GatedSource": "loop",
    "generate_gated": "loop",
    "OfflineGenerator": "offline",
    "template_names": "offline",
    "OpenAICompatConfig": "openai_compat",
    "OpenAICompatGenerator": "openai_compat",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'dyntools.generators' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"dyntools.generators.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
