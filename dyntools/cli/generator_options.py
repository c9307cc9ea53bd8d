"""The generator options a command that writes code takes (`repair`; `ensure` spells the same
options out itself), and the generator they build.

    @generator_options
    def repair(..., generator_name, source_file, model, base_url, api_key_env, temperature,
               max_tokens, effort, retries, model_timeout, max_attempts): ...
    generator = generator_from(options, policy=policy, capabilities=granted)
"""

from __future__ import annotations

from typing import Any

import click

from dyntools.generators.factory import DEFAULT_GENERATOR, GENERATOR_NAMES, MODEL_GENERATORS

NAMES = ("generator_name", "source_file", "model", "base_url", "api_key_env", "temperature",
         "max_tokens", "effort", "retries", "model_timeout")

GENERATOR_OPTIONS = [
    click.option("--generator", "generator_name", default=DEFAULT_GENERATOR,
                 show_default=True, type=click.Choice(GENERATOR_NAMES),
                 help="Where new code comes from."),
    click.option("--from", "source_file", default=None,
                 help="--generator file: the tool file ('-' reads stdin)."),
    click.option("--model", default=None, help=f"Model id ({', '.join(MODEL_GENERATORS)})."),
    click.option("--base-url", default=None, help="API base URL (openai: Ollama, vLLM, ...)."),
    click.option("--api-key-env", default=None, help="Variable holding the API key."),
    click.option("--temperature", type=float, default=None, help="Sampling temperature."),
    click.option("--max-tokens", type=int, default=None, help="Answer length limit."),
    click.option("--effort", default=None, help="anthropic: output effort."),
    click.option("--retries", type=int, default=None, help="Transport retries (429, 5xx)."),
    click.option("--model-timeout", type=float, default=None,
                 help="Seconds to wait for the model per request."),
    click.option("--max-attempts", type=click.IntRange(min=1), default=3, show_default=True,
                 help="Attempts in all: a gate rejection or a failed verification is fed back "
                      "to a model for the next one (a file or a template gets one)."),
]


def generator_options(command: Any) -> Any:
    for option in reversed(GENERATOR_OPTIONS):
        command = option(command)
    return command


def generator_from(options: dict[str, Any], *, policy: Any, capabilities: Any) -> Any:
    """The generator the options name (`build_generator`'s errors are the caller's)."""
    from dyntools.generators import build_generator

    return build_generator(
        options["generator_name"], policy=policy, capabilities=capabilities,
        source_path=options["source_file"], model=options["model"],
        base_url=options["base_url"], api_key_env=options["api_key_env"],
        temperature=options["temperature"], max_tokens=options["max_tokens"],
        effort=options["effort"], retries=options["retries"],
        timeout=options["model_timeout"])
