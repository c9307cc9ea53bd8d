"""Built-in templates: each passes the gate, declares its own name, and its EXAMPLES are right."""

from __future__ import annotations

import ast
import contextlib
import json
import sys
import types

import jsonschema
import pytest

from dyntools.errors import GenerationNoTemplate
from dyntools.gate import check_source
from dyntools.gate.findings import render_text
from dyntools.generators import OfflineGenerator, ToolSpec, generate_gated, template_names
from dyntools.generators.loop import declared_name
from dyntools.generators.offline import template_source

NAMES = template_names()


def constants(source: str) -> dict:
    """The literal top-level constants, read without running the file."""
    values = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = ast.literal_eval(node.value)
    return values


def test_there_is_a_handful() -> None:
    assert 6 <= len(NAMES) <= 12
    assert {"slugify_text", "word_count", "json_pretty", "levenshtein_distance",
            "roman_numeral", "date_diff_days"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_template_passes_the_gate(name, policy) -> None:
    report = check_source(template_source(name), policy, path=f"{name}.py")
    assert report.accepted, render_text(report)


@pytest.mark.parametrize("name", NAMES)
def test_template_metadata(name) -> None:
    values = constants(template_source(name))
    assert declared_name(template_source(name))[0] == name == values["NAME"]
    assert values["DESCRIPTION"].strip()
    jsonschema.Draft202012Validator.check_schema(values["PARAMS"])
    assert values["EXAMPLES"], "every template carries examples"
    for example in values["EXAMPLES"]:
        jsonschema.validate(example["params"], values["PARAMS"])


@pytest.mark.parametrize("name", NAMES)
def test_template_examples_are_correct(name) -> None:
    # Test-only: our own templates, run in-process to check their fixtures. The generators
    # never run what they produce; the verification station runs EXAMPLES in the sandbox.
    for example in _examples(name):
        namespace: dict = {}
        with _replaying_host(example.get("http", [])):
            exec(compile(template_source(name), f"{name}.py", "exec"), namespace)
            result = namespace["run"](example["params"])
        assert json.loads(json.dumps(result)) == example["result"]


def _examples(name: str) -> list[dict]:
    namespace: dict = {}
    with _replaying_host([]):
        exec(compile(template_source(name), f"{name}.py", "exec"), namespace)
    return namespace["EXAMPLES"]


@contextlib.contextmanager
def _replaying_host(exchanges: list[dict]):
    """A stand-in `host` module for running a capability template in-process: it answers
    each http_get from the example's recorded exchanges, in order, and nothing else."""
    module = types.ModuleType("host")

    class HttpError(Exception):
        def __init__(self, message, status=None, text="", kind="connection"):
            super().__init__(message)
            self.status, self.text, self.kind = status, text, kind

    pending = list(exchanges)

    def http_get(url, *, params=None, headers=None):
        assert pending, f"an unrecorded request: GET {url}"
        exchange = pending.pop(0)
        assert exchange["request"] == {"method": "GET", "url": url}
        if "failure" in exchange:
            raise HttpError(exchange["failure"], kind=exchange["failure"])
        response = exchange["response"]
        if response["status"] >= 400:
            raise HttpError(str(response["status"]), response["status"],
                            response.get("text", ""), "status")
        return {"status": response["status"], "headers": response.get("headers", {}),
                "text": response.get("text", "")}

    module.HttpError, module.http_get = HttpError, http_get
    saved = sys.modules.get("host")
    sys.modules["host"] = module
    try:
        yield
        assert not pending, f"recorded but never requested: {pending}"
    finally:
        if saved is None:
            sys.modules.pop("host", None)
        else:
            sys.modules["host"] = saved


def test_offline_generator_through_the_loop(policy) -> None:
    gated = generate_gated(
        OfflineGenerator(), ToolSpec("word_count"), lambda s: check_source(s, policy)
    )
    assert gated.generated.generator == "offline"
    assert gated.generated.model is None and gated.generated.attempts == 1
    assert gated.report.accepted


def test_unknown_name_says_how_to_configure_a_real_generator() -> None:
    with pytest.raises(GenerationNoTemplate) as caught:
        OfflineGenerator().generate(ToolSpec("make_coffee"))
    message = caught.value.message
    assert "make_coffee" in message
    assert "--generator anthropic" in message and "ANTHROPIC_API_KEY" in message
    assert "--generator openai" in message and "--base-url" in message
    assert caught.value.reason == "no_template"
    assert caught.value.details["templates"] == list(NAMES)
