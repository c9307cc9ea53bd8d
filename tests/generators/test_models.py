"""Default models are current in the installed SDKs; deprecations reach the user as one line."""

from __future__ import annotations

import datetime
import sys
from pathlib import Path
from typing import get_args

import pytest

from dyntools.generators import build_generator
from dyntools.generators.models import (
    DEFAULT_MODELS,
    model_notice,
    parse_openai_shutdowns,
)

TODAY = datetime.date(2026, 12, 1)


def test_default_anthropic_model_is_listed_and_not_deprecated() -> None:
    from anthropic._data import DEPRECATED_MODELS
    from anthropic.types import Model

    known = {arg for part in get_args(Model) for arg in get_args(part) if isinstance(arg, str)}
    assert DEFAULT_MODELS["anthropic"] in known
    assert DEFAULT_MODELS["anthropic"] not in DEPRECATED_MODELS
    assert model_notice("anthropic", DEFAULT_MODELS["anthropic"], today=TODAY) is None


def test_default_openai_model_is_listed_and_not_deprecated() -> None:
    import inspect

    from openai.types.shared import chat_model

    assert DEFAULT_MODELS["openai"] in get_args(chat_model.ChatModel)
    shutdowns = parse_openai_shutdowns(inspect.getsource(chat_model))
    assert len(shutdowns) > 10  # the parser really reads the SDK's list
    assert DEFAULT_MODELS["openai"] not in shutdowns
    assert model_notice("openai", DEFAULT_MODELS["openai"], today=TODAY) is None


def test_generators_default_to_the_table() -> None:
    assert build_generator("anthropic").model == DEFAULT_MODELS["anthropic"]
    assert build_generator("openai").model == DEFAULT_MODELS["openai"]


def test_the_old_default_is_flagged() -> None:
    notice = model_notice("anthropic", "claude-sonnet-4-5", today=TODAY)
    assert notice is not None and "claude-sonnet-4-5" in notice and "\n" not in notice
    assert DEFAULT_MODELS["anthropic"] in notice


def test_deprecated_and_past_end_of_life_models_say_so_in_one_line() -> None:
    from anthropic._data import DEPRECATED_MODELS

    for model in DEPRECATED_MODELS:
        notice = model_notice("anthropic", model, today=TODAY)
        assert notice is not None and model in notice and "\n" not in notice
    past = model_notice("anthropic", "claude-opus-4-5", today=datetime.date(2027, 2, 1))
    assert past is not None and "past its end of life" in past
    assert "deprecated" in (model_notice("openai", "gpt-4o-mini", today=TODAY) or "")
    assert "past its shutdown" in (model_notice("openai", "o1-mini", today=TODAY) or "")


def test_other_endpoints_and_generators_have_nothing_to_say() -> None:
    assert model_notice("openai", "qwen2.5-coder", today=TODAY) is None
    assert model_notice("offline", "anything", today=TODAY) is None
    local = build_generator("openai", base_url="http://localhost:11434/v1", model="gpt-4o-mini")
    assert local.notice is None  # type: ignore[attr-defined]


def test_parse_openai_shutdowns() -> None:
    text = '''"""Deprecated values:

- "a-1", "a-2": Announced shutdown date: 2027-04-01. See x.
- "b": Announced shutdown
  date: 2026-08-10. See y.
"""'''
    assert parse_openai_shutdowns(text) == {
        "a-1": datetime.date(2027, 4, 1), "a-2": datetime.date(2027, 4, 1),
        "b": datetime.date(2026, 8, 10)}


def test_cli_prints_one_line_and_no_warning_dump(tmp_path: Path) -> None:
    import subprocess

    result = subprocess.run(
        [sys.executable, "-W", "default", "-m", "dyntools", "ensure", "word_stats",
         "--registry", str(tmp_path / "r"), "--generator", "anthropic",
         "--model", "claude-opus-4-5"],
        check=False, capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert result.returncode == 14  # no key: nothing was sent
    lines = result.stderr.splitlines()
    warning = [line for line in lines if line.startswith("warning: ")]
    assert len(warning) == 1 and "claude-opus-4-5" in warning[0]
    assert "DeprecationWarning" not in result.stderr


def test_the_generator_logs_the_notice_once_and_the_sdk_warning_stays_quiet(policy) -> None:
    import warnings

    from structlog.testing import capture_logs

    from dyntools.errors import GenerationConnectionError
    from dyntools.generators import AnthropicConfig, AnthropicGenerator, ToolSpec

    generator = AnthropicGenerator(
        AnthropicConfig(model="claude-opus-4-5", base_url="http://127.0.0.1:9",
                        max_retries=0, timeout=2.0),
        policy=policy, environ={"ANTHROPIC_API_KEY": "test-key"})
    with capture_logs() as logs, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(2):
            with pytest.raises(GenerationConnectionError):
                generator.generate(ToolSpec("word_stats"))
    notices = [e for e in logs if e["event"] == "model_deprecated"]
    assert len(notices) == 1 and "claude-opus-4-5" in notices[0]["notice"]
    # The SDK's own warning is raised (the CLI filters it); it names the same model.
    assert any("claude-opus-4-5" in str(w.message) for w in caught)
