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


# ------------------------------------------------------------- one table of generator names


def test_every_generator_in_the_table_builds(policy) -> None:
    from dyntools.generators.factory import GENERATORS

    for kind in GENERATORS:
        built = build_generator(kind.name, policy=policy,
                                source_path="-" if kind.name == "file" else None)
        assert built.id == kind.name  # provenance records the table's name


def test_every_list_of_generator_names_reads_the_table() -> None:
    from click import Choice

    from dyntools.adapters.mcp_server import DEFAULT_GENERATORS, KNOWN_GENERATORS
    from dyntools.cli import main
    from dyntools.cli.app import load_commands
    from dyntools.generators.factory import GENERATOR_NAMES, MODEL_GENERATORS, OFFERED_GENERATORS
    from dyntools.generators.models import DEFAULT_MODELS

    load_commands()
    choice = next(p.type for p in main.commands["ensure"].params if p.name == "generator_name")
    assert isinstance(choice, Choice) and tuple(choice.choices) == GENERATOR_NAMES
    served = next(p for p in main.commands["serve-mcp"].params if p.name == "generator_names")
    assert served.default == ",".join(OFFERED_GENERATORS)
    assert (KNOWN_GENERATORS, DEFAULT_GENERATORS) == (GENERATOR_NAMES, OFFERED_GENERATORS)
    assert set(DEFAULT_MODELS) == set(MODEL_GENERATORS)


def test_no_module_writes_generator_names_out_again() -> None:
    """A tuple, list or set literal of two or more generator names anywhere in dyntools/
    outside the table is a second copy that will drift."""
    import ast
    from pathlib import Path

    import dyntools
    from dyntools.generators.factory import GENERATOR_NAMES

    package = Path(dyntools.__file__).parent
    not_generator_names = {
        "generators/factory.py": "the table itself",
        "generators/sdk_errors.py": "the SDKs' Python package names (anthropic, openai)",
    }
    copies = []
    for path in sorted(package.rglob("*.py")):
        if str(path.relative_to(package)) in not_generator_names:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                names = [e.value for e in node.elts
                         if isinstance(e, ast.Constant) and e.value in GENERATOR_NAMES]
                if len(names) >= 2:
                    copies.append(f"{path.relative_to(package)}:{node.lineno}: {names}")
    assert copies == []
