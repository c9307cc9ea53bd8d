"""The generators dyntools knows, in one table, and building one from the options a CLI or a
config file names.

    build_generator("anthropic", model="claude-sonnet-5-5", timeout=60)
    build_generator("openai", base_url="http://localhost:11434/v1", model="qwen2.5-coder")
    build_generator("file", source_path="tool.py")      # "-" reads stdin
    build_generator("offline")

`GENERATORS` is the only place generator names are written: `ensure --generator`, the MCP
server's `--generators` and its ensure_tool, the default models (models.py) and this factory
all read it. It costs nothing to import (no generator module is loaded until one is built).

Options that do not apply to the chosen generator are refused rather than ignored, so a typo'd
command line never silently runs with defaults.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dyntools.errors import UsageError

if TYPE_CHECKING:
    from dyntools.gate.policy import Policy
    from dyntools.generators.base import Generator


@dataclass(frozen=True, slots=True)
class GeneratorKind:
    """One generator: its name (as `--generator` spells it and provenance records it)."""

    name: str
    summary: str
    model: bool  # a network model: takes --model, --base-url, ... and has a default model
    offered: bool  # offered by an MCP server's ensure_tool unless the operator narrows it


GENERATORS: tuple[GeneratorKind, ...] = (
    GeneratorKind("offline", "built-in templates (no key, no network)", model=False,
                  offered=True),
    GeneratorKind("anthropic", "the Messages API through the anthropic client", model=True,
                  offered=True),
    GeneratorKind("openai", "chat completions through the openai client (OpenAI, Ollama, "
                  "vLLM, OpenRouter, ...)", model=True, offered=True),
    # The caller supplies the tool's source: offered over MCP only when the operator asks.
    GeneratorKind("file", "a file or stdin written by a person or another agent",
                  model=False, offered=False),
)
GENERATOR_NAMES: tuple[str, ...] = tuple(g.name for g in GENERATORS)
MODEL_GENERATORS: tuple[str, ...] = tuple(g.name for g in GENERATORS if g.model)
OFFERED_GENERATORS: tuple[str, ...] = tuple(g.name for g in GENERATORS if g.offered)
DEFAULT_GENERATOR = "offline"

# option name (as the CLI spells it) -> config field
_MODEL_OPTIONS = {
    "model": "model",
    "temperature": "temperature",
    "max_tokens": "max_tokens",
    "retries": "max_retries",
    "timeout": "timeout",
    "base_url": "base_url",
    "api_key_env": "api_key_env",
}


def build_generator(
    name: str,
    *,
    policy: Policy | None = None,
    source_path: str | Path | None = None,
    capabilities: Any = None,
    **options: Any,
) -> Generator:
    """`capabilities` (the operator's CapabilityPolicy) tells a model what `host` can grant;
    the offline and file generators do not need it."""
    given = {key: value for key, value in options.items() if value is not None}
    if name in MODEL_GENERATORS:
        if source_path is not None:
            raise UsageError(f"--from only applies to --generator file, not {name}")
        return _model_generator(name, given, policy, capabilities)
    if given:
        raise UsageError(
            f"--generator {name} takes no model options (got {', '.join(sorted(given))})"
        )
    if name == "file":
        from dyntools.generators.file import FileGenerator

        if source_path is None:
            raise UsageError("--generator file needs --from FILE (or --from - for stdin)")
        return FileGenerator(source_path)
    if name == "offline":
        from dyntools.generators.offline import OfflineGenerator

        if source_path is not None:
            raise UsageError("--from only applies to --generator file")
        return OfflineGenerator()
    raise UsageError(
        f"unknown generator {name!r}; choose one of {', '.join(GENERATOR_NAMES)}",
        generator=name,
    )


# model generator -> (module, config class, generator class, options beyond _MODEL_OPTIONS)
_MODEL_BUILDERS: dict[str, tuple[str, str, str, dict[str, str]]] = {
    "anthropic": ("anthropic", "AnthropicConfig", "AnthropicGenerator", {"effort": "effort"}),
    "openai": ("openai_compat", "OpenAICompatConfig", "OpenAICompatGenerator", {}),
}


def _model_generator(name: str, given: dict[str, Any], policy: Policy | None,
                     capabilities: Any = None) -> Generator:
    import importlib

    module_name, config_name, class_name, extra = _MODEL_BUILDERS[name]
    module = importlib.import_module(f"dyntools.generators.{module_name}")
    config_cls = getattr(module, config_name)
    fields = {f.name for f in dataclasses.fields(config_cls)}
    mapping = {**_MODEL_OPTIONS, **extra}
    unknown = sorted(k for k in given if k not in mapping or mapping[k] not in fields)
    if unknown:
        raise UsageError(f"--generator {name} does not take: {', '.join(unknown)}")
    config = config_cls(**{mapping[k]: v for k, v in given.items()})
    generator: Generator = getattr(module, class_name)(config, policy=policy,
                                                       capabilities=capabilities)
    return generator
