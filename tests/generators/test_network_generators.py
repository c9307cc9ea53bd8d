"""Both network generators, through their real SDK clients, against a stub on 127.0.0.1.

Every scenario ends in an accepted source or a specific GenerationError/GateRejected leaf,
never in an SDK exception.
"""

from __future__ import annotations

import pytest

from dyntools.errors import (
    GateRejected,
    GenerationAuthError,
    GenerationError,
    GenerationNoCode,
    GenerationNoKey,
    GenerationRateLimited,
    GenerationRefused,
    GenerationServerError,
    GenerationTimeout,
    GenerationTruncated,
)
from dyntools.gate import check_source
from dyntools.generators import (
    AnthropicConfig,
    AnthropicGenerator,
    OpenAICompatConfig,
    OpenAICompatGenerator,
    ToolSpec,
    generate_gated,
)
from dyntools.generators.offline import template_source

from .flavors import ANTHROPIC, OPENAI, Flavor
from .stub_server import Reply, StubServer

SPEC = ToolSpec("slugify_text", "Turns a title into a URL slug.")
GOOD = template_source("slugify_text")
BAD = GOOD.replace("import re\n", "import re\nimport os\n").replace(
    'return {"slug"', 'os.system("true")\n    return {"slug"'
)


def fenced(code: str) -> str:
    return f"Here is the tool:\n\n```python\n{code}```\n\nIt slugifies text."


def run(flavor: Flavor, stub: StubServer, policy, *, max_attempts: int = 3, **kwargs):
    generator = flavor.generator(stub.url, policy=policy, **kwargs)
    gate = lambda source: check_source(source, policy)  # noqa: E731
    return generate_gated(generator, SPEC, gate, max_attempts=max_attempts)


def test_bad_source_really_fails_the_gate(policy) -> None:
    assert check_source(GOOD, policy).accepted
    assert "DT201" in check_source(BAD, policy).codes


def test_good_answer(flavor, stub, policy) -> None:
    stub.script(flavor.answer(fenced(GOOD)))
    gated = run(flavor, stub, policy)
    assert gated.generated.source == GOOD
    assert gated.generated.attempts == 1
    assert gated.generated.generator == flavor.name
    assert gated.generated.model in ("claude-test", "gpt-test")
    assert gated.report.accepted
    assert len(gated.generated.prompt_sha256 or "") == 64
    [request] = stub.requests
    assert request.path == flavor.path()
    assert flavor.key_header(request) == "test-key"
    system = flavor.conversation(request)[0]["content"]
    assert "unicodedata: " in system and "NAME" in system  # allow-list and contract


def test_gate_rejection_then_fixed_answer_feeds_findings_back(flavor, stub, policy) -> None:
    stub.script(flavor.answer(fenced(BAD)), flavor.answer(fenced(GOOD)))
    gated = run(flavor, stub, policy)
    assert gated.generated.attempts == 2
    assert [r.codes for r in gated.rejected] == [check_source(BAD, policy).codes]
    first, second = (flavor.conversation(r) for r in stub.requests)
    assert len(first) == 2 and len(second) == 4
    assert second[2]["role"] == "assistant" and "import os" in second[2]["content"]
    feedback = second[3]["content"]
    assert second[3]["role"] == "user"
    assert "DT201" in feedback and "os" in feedback
    # the retry keeps the original task and system prompt
    assert second[:2] == first


def test_gate_rejection_every_time_ends_in_gate_rejected(flavor, stub, policy) -> None:
    stub.script(*(flavor.answer(fenced(BAD)) for _ in range(2)))
    with pytest.raises(GateRejected) as caught:
        run(flavor, stub, policy, max_attempts=2)
    assert caught.value.details["attempts"] == 2
    assert "DT201" in {f["code"] for f in caught.value.details["findings"]}
    assert len(stub.requests) == 2


def test_answer_without_code(flavor, stub, policy) -> None:
    stub.script(flavor.answer("I would need more detail before writing this tool."))
    with pytest.raises(GenerationNoCode) as caught:
        run(flavor, stub, policy)
    assert caught.value.reason == "no_code"
    assert len(stub.requests) == 1


def test_rate_limited_then_success(flavor, stub, policy) -> None:
    stub.script(flavor.error(429, "rate_limit_error"), flavor.answer(fenced(GOOD)))
    gated = run(flavor, stub, policy, max_retries=1)
    assert gated.report.accepted
    assert len(stub.requests) == 2
    assert stub.requests[1].headers.get("x-stainless-retry-count") == "1"


def test_rate_limited_after_retries(flavor, stub, policy) -> None:
    stub.script(*(flavor.error(429, "rate_limit_error") for _ in range(2)))
    with pytest.raises(GenerationRateLimited) as caught:
        run(flavor, stub, policy, max_retries=1)
    assert caught.value.details["status"] == 429
    assert caught.value.station == "generate"


def test_server_error(flavor, stub, policy) -> None:
    stub.script(*(flavor.error(500, "api_error", "boom") for _ in range(2)))
    with pytest.raises(GenerationServerError) as caught:
        run(flavor, stub, policy, max_retries=1)
    assert caught.value.reason == "server_error"
    assert caught.value.details["status"] == 500
    assert len(stub.requests) == 2  # the SDK's one transport retry, then the typed error


def test_timeout(flavor, stub, policy) -> None:
    stub.script(Reply(200, {}, delay=5.0))
    with pytest.raises(GenerationTimeout) as caught:
        run(flavor, stub, policy, max_retries=0, timeout=0.2)
    assert caught.value.reason == "timeout"


def test_refusal(flavor, stub, policy) -> None:
    stub.script(flavor.refusal())
    with pytest.raises(GenerationRefused) as caught:
        run(flavor, stub, policy)
    assert caught.value.reason == "refusal"
    assert len(stub.requests) == 1  # a refusal is not retried


def test_truncated_answer(flavor, stub, policy) -> None:
    stub.script(flavor.truncated("```python\n" + GOOD[:80]))
    with pytest.raises(GenerationTruncated):
        run(flavor, stub, policy)


def test_authentication_failure(flavor, stub, policy) -> None:
    stub.script(flavor.error(401, "authentication_error", "invalid x-api-key"))
    with pytest.raises(GenerationAuthError) as caught:
        run(flavor, stub, policy)
    assert caught.value.reason == "auth"


def test_unknown_model_is_a_bad_request(flavor, stub, policy) -> None:
    stub.script(flavor.error(404, "not_found_error", "model: nope"))
    with pytest.raises(GenerationError) as caught:
        run(flavor, stub, policy)
    assert caught.value.reason == "bad_request"


def test_garbage_body_is_a_typed_error(flavor, stub, policy) -> None:
    stub.script(Reply(200, "<html>not json</html>"))
    with pytest.raises(GenerationError):
        run(flavor, stub, policy)


def test_missing_key_fails_before_any_request(stub, policy) -> None:
    generator = ANTHROPIC.generator(stub.url, policy=policy, environ={})
    with pytest.raises(GenerationNoKey) as caught:
        generator.generate(SPEC)
    assert "ANTHROPIC_API_KEY" in caught.value.message
    assert stub.requests == []


def test_openai_remote_base_url_needs_a_key(policy) -> None:
    generator = OpenAICompatGenerator(
        OpenAICompatConfig(base_url="https://openrouter.ai/api/v1"), policy=policy, environ={}
    )
    with pytest.raises(GenerationNoKey) as caught:
        generator.generate(SPEC)
    assert "OPENAI_API_KEY" in caught.value.message


def test_openai_local_base_url_needs_no_key(stub, policy) -> None:
    stub.script(OPENAI.answer(fenced(GOOD)))
    gated = run(OPENAI, stub, policy, environ={})
    assert gated.report.accepted
    assert OPENAI.key_header(stub.requests[0]) == "not-needed"


def test_openai_key_from_a_configured_variable(stub, policy) -> None:
    stub.script(OPENAI.answer(fenced(GOOD)))
    generator = OpenAICompatGenerator(
        OpenAICompatConfig(base_url=stub.url + "/v1", api_key_env="OPENROUTER_API_KEY"),
        policy=policy,
        environ={"OPENROUTER_API_KEY": "router-key"},
    )
    generator.generate(SPEC)
    assert OPENAI.key_header(stub.requests[0]) == "router-key"


def test_request_carries_model_and_settings(stub, policy) -> None:
    stub.script(ANTHROPIC.answer(fenced(GOOD)))
    generator = AnthropicGenerator(
        AnthropicConfig(
            model="claude-x", temperature=0.3, effort="low", max_tokens=777, base_url=stub.url
        ),
        policy=policy,
        environ={"ANTHROPIC_API_KEY": "k"},
    )
    generator.generate(SPEC)
    body = stub.requests[0].json()
    assert (body["model"], body["temperature"], body["max_tokens"]) == ("claude-x", 0.3, 777)
    assert body["output_config"] == {"effort": "low"}
    assert [m["role"] for m in body["messages"]] == ["user"]
