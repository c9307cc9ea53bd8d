"""The two network generators behind one test interface: how each API shapes its answers.

Shapes follow the installed SDKs' own models (anthropic 2.x `types.Message`, openai 3.x
`types.chat.ChatCompletion`) and their error bodies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dyntools.gate.policy import Policy
from dyntools.generators import (
    AnthropicConfig,
    AnthropicGenerator,
    OpenAICompatConfig,
    OpenAICompatGenerator,
)

from .stub_server import RecordedRequest, Reply

# Short timeouts and one transport retry keep the suite fast; retry-after-ms makes the SDKs'
# backoff a millisecond instead of half a second.
TIMEOUT = 1.0
FAST_RETRY = {"retry-after-ms": "1"}


@dataclass(frozen=True)
class Flavor:
    name: str
    key_env: str

    def generator(
        self, base_url: str, *, policy: Policy, environ: dict[str, str] | None = None,
        max_retries: int = 1, timeout: float = TIMEOUT,
    ) -> Any:
        env = {self.key_env: "test-key"} if environ is None else environ
        if self.name == "anthropic":
            return AnthropicGenerator(
                AnthropicConfig(
                    model="claude-test", base_url=base_url, max_retries=max_retries,
                    timeout=timeout, max_tokens=1024,
                ),
                policy=policy,
                environ=env,
            )
        return OpenAICompatGenerator(
            OpenAICompatConfig(
                model="gpt-test", base_url=base_url + "/v1", max_retries=max_retries,
                timeout=timeout,
            ),
            policy=policy,
            environ=env,
        )

    def answer(self, text: str, *, stop: str | None = None) -> Reply:
        if self.name == "anthropic":
            return Reply(200, {
                "id": "msg_test",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [{"type": "text", "text": text}],
                "stop_reason": stop or "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 20},
            })
        return Reply(200, {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "gpt-test",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "finish_reason": stop or "stop",
                "logprobs": None,
            }],
            "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
        })

    def refusal(self) -> Reply:
        if self.name == "anthropic":
            reply = self.answer("", stop="refusal")
            body = dict(reply.body)
            body["content"] = []
            body["stop_details"] = {
                "type": "refusal", "category": "cyber", "explanation": "declined in a test",
            }
            return Reply(200, body)
        reply = self.answer("")
        body = dict(reply.body)
        body["choices"] = [{
            "index": 0,
            "message": {"role": "assistant", "content": None, "refusal": "I can't help with that."},
            "finish_reason": "stop",
            "logprobs": None,
        }]
        return Reply(200, body)

    def truncated(self, text: str) -> Reply:
        return self.answer(text, stop="max_tokens" if self.name == "anthropic" else "length")

    def error(self, status: int, kind: str, message: str = "stub error") -> Reply:
        if self.name == "anthropic":
            body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            body = {"error": {"message": message, "type": kind, "param": None, "code": kind}}
        return Reply(status, body, headers=FAST_RETRY)

    def path(self) -> str:
        return "/v1/messages" if self.name == "anthropic" else "/v1/chat/completions"

    def conversation(self, request: RecordedRequest) -> list[dict[str, Any]]:
        """The request's turns as [{"role", "content"}], the system prompt first."""
        body = request.json()
        if self.name == "anthropic":
            return [{"role": "system", "content": body["system"]}, *body["messages"]]
        return list(body["messages"])

    def key_header(self, request: RecordedRequest) -> str:
        # anthropic 2.x sends the key as a bearer token; 0.x used x-api-key
        if self.name == "anthropic" and "x-api-key" in request.headers:
            return request.headers["x-api-key"]
        return request.headers.get("authorization", "").removeprefix("Bearer ")


ANTHROPIC = Flavor("anthropic", "ANTHROPIC_API_KEY")
OPENAI = Flavor("openai", "OPENAI_API_KEY")
FLAVORS = (ANTHROPIC, OPENAI)
