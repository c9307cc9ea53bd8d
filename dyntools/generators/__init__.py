"""Generators: where a tool's source text comes from.

    Generator            the protocol: id, model, accepts_feedback, generate(spec)
    AnthropicGenerator   the Messages API through the `anthropic` client
    OpenAICompatGenerator chat completions through the `openai` client (OpenAI, Ollama, vLLM, ...)
    FileGenerator        a file or stdin written by a person or another agent
    OfflineGenerator     built-in templates (no key, no network)
    generate_gated       generate, gate, and retry with the findings as feedback
    build_generator      a generator from CLI-style options ("anthropic", model=..., ...)

The model SDKs are imported only when a network generator makes its first call.
"""

from __future__ import annotations

from dyntools.generators.anthropic import AnthropicConfig, AnthropicGenerator
from dyntools.generators.base import GateFeedback, GeneratedSource, Generator, ToolSpec
from dyntools.generators.factory import GENERATOR_NAMES, build_generator
from dyntools.generators.file import FileGenerator
from dyntools.generators.loop import GatedSource, generate_gated
from dyntools.generators.offline import OfflineGenerator, template_names
from dyntools.generators.openai_compat import OpenAICompatConfig, OpenAICompatGenerator

__all__ = [
    "GENERATOR_NAMES",
    "AnthropicConfig",
    "AnthropicGenerator",
    "FileGenerator",
    "GateFeedback",
    "GatedSource",
    "GeneratedSource",
    "Generator",
    "OfflineGenerator",
    "OpenAICompatConfig",
    "OpenAICompatGenerator",
    "ToolSpec",
    "build_generator",
    "generate_gated",
    "template_names",
]
