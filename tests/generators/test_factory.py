from __future__ import annotations

import pytest

from dyntools.errors import UsageError
from dyntools.generators import (
    AnthropicGenerator,
    FileGenerator,
    OfflineGenerator,
    OpenAICompatGenerator,
)
from dyntools.generators.factory import build_generator


def test_builds_each_generator(policy) -> None:
    anthropic = build_generator("anthropic", policy=policy, model="claude-x", retries=0,
                                timeout=5.0, effort="low", temperature=None)
    assert isinstance(anthropic, AnthropicGenerator)
    assert (anthropic.config.model, anthropic.config.max_retries) == ("claude-x", 0)
    assert anthropic.config.effort == "low" and anthropic.policy is policy
    openai = build_generator("openai", policy=policy, base_url="http://localhost:11434/v1",
                             model="qwen", api_key_env="OLLAMA_KEY")
    assert isinstance(openai, OpenAICompatGenerator)
    assert openai.base_url == "http://localhost:11434/v1"
    assert isinstance(build_generator("file", source_path="-"), FileGenerator)
    assert isinstance(build_generator("offline"), OfflineGenerator)


@pytest.mark.parametrize(
    ("name", "kwargs", "words"),
    [
        ("gpt", {}, "unknown generator"),
        ("offline", {"model": "x"}, "takes no model options"),
        ("offline", {"source_path": "x.py"}, "--from only applies"),
        ("file", {}, "needs --from"),
        ("anthropic", {"source_path": "x.py"}, "--from only applies"),
        ("openai", {"effort": "low"}, "does not take: effort"),
        ("anthropic", {"colour": "red"}, "does not take: colour"),
    ],
)
def test_refuses_options_that_do_not_apply(name, kwargs, words) -> None:
    with pytest.raises(UsageError) as caught:
        build_generator(name, **kwargs)
    assert words in caught.value.message
