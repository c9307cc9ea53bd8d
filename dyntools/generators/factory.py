"""Build a generator from the options a CLI or a config file names.

    build_generator("anthropic", model="claude-sonnet-5-5", timeout=60)
    build_generator("openai", base_url="http://localhost:11434/v1", model="qwen2.5-coder")
    build_generator("file", source_path="tool.py")      # "-" reads stdin
    build_generator("offline")

Options that do not apply to the chosen generator are refused rather than ignored, so a typo'd
command line never silently runs with defaults.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from dyntools.errors import UsageError
from dyntools.gate.policy import Policy
from dyntools.generators.anthropic import AnthropicConfig, AnthropicGenerator
from dyntools.generators.base import Generator
from dyntools.generators.file import FileGenerator
from dyntools.generators.offline import OfflineGenerator
from dyntools.generators.openai_compat import OpenAICompatConfig, OpenAICompatGenerator

GENERATOR_NAMES = ("offline", "anthropic", "openai", "file")

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
    if name in ("anthropic", "openai"):
        if source_path is not None:
            raise UsageError(f"--from only applies to --generator file, not {name}")
        config_cls: Any = AnthropicConfig if name == "anthropic" else OpenAICompatConfig
        fields = {f.name for f in dataclasses.fields(config_cls)}
        extra = {"effort": "effort"} if name == "anthropic" else {}
        mapping = {**_MODEL_OPTIONS, **extra}
        unknown = sorted(k for k in given if k not in mapping or mapping[k] not in fields)
        if unknown:
            raise UsageError(f"--generator {name} does not take: {', '.join(unknown)}")
        config = config_cls(**{mapping[k]: v for k, v in given.items()})
        if name == "anthropic":
            return AnthropicGenerator(config, policy=policy, capabilities=capabilities)
        return OpenAICompatGenerator(config, policy=policy, capabilities=capabilities)
    if given:
        raise UsageError(
            f"--generator {name} takes no model options (got {', '.join(sorted(given))})"
        )
    if name == "file":
        if source_path is None:
            raise UsageError("--generator file needs --from FILE (or --from - for stdin)")
        return FileGenerator(source_path)
    if name == "offline":
        if source_path is not None:
            raise UsageError("--from only applies to --generator file")
        return OfflineGenerator()
    raise UsageError(
        f"unknown generator {name!r}; choose one of {', '.join(GENERATOR_NAMES)}",
        generator=name,
    )
