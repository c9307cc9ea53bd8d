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

from dyntools import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
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
    "AnthropicConfig": "dyntools.generators.anthropic",
    "AnthropicGenerator": "dyntools.generators.anthropic",
    "GateFeedback": "dyntools.generators.base",
    "GeneratedSource": "dyntools.generators.base",
    "Generator": "dyntools.generators.base",
    "ToolSpec": "dyntools.generators.base",
    "GENERATORS": "dyntools.generators.factory",
    "GENERATOR_NAMES": "dyntools.generators.factory",
    "GeneratorKind": "dyntools.generators.factory",
    "build_generator": "dyntools.generators.factory",
    "FileGenerator": "dyntools.generators.file",
    "GatedSource": "dyntools.generators.loop",
    "generate_gated": "dyntools.generators.loop",
    "OfflineGenerator": "dyntools.generators.offline",
    "template_names": "dyntools.generators.offline",
    "OpenAICompatConfig": "dyntools.generators.openai_compat",
    "OpenAICompatGenerator": "dyntools.generators.openai_compat",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
