"""The Anthropic generator: the Messages API through the real `anthropic` client.

The key comes from `ANTHROPIC_API_KEY` (or the variable named in the config) and is checked
before any call: the SDK would otherwise construct a client and fail later with a bare
`TypeError`, or pick up a profile from disk the user never meant to use. The key is passed to
the client explicitly, which also turns off the SDK's own credential discovery.

Transport retries (429, 5xx, timeouts) are the SDK's (`max_retries`, honouring `retry-after`);
retries after a gate rejection are the loop's (`generate_gated`). Every failure leaves as a
`GenerationError` leaf via `map_sdk_error`; none escapes as an SDK exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dyntools.errors import GenerationError, GenerationNoKey, GenerationRefused, GenerationTruncated
from dyntools.generators.base import ToolSpec
from dyntools.generators.model import Answer, ModelGenerator
from dyntools.generators.models import DEFAULT_MODELS
from dyntools.generators.prompt import Prompt

DEFAULT_MODEL = DEFAULT_MODELS["anthropic"]


@dataclass(frozen=True, slots=True)
class AnthropicConfig:
    model: str = DEFAULT_MODEL
    # anthropic 2.x dropped `temperature` from messages.create; when set it travels in
    # extra_body, for endpoints and older models that still read it. None: not sent.
    temperature: float | None = None
    effort: str | None = None  # output_config.effort: low, medium, high, xhigh, max
    max_tokens: int = 8192
    max_retries: int = 2  # the SDK's transport retries (429, 5xx, connection errors)
    timeout: float = 120.0  # seconds per request
    base_url: str | None = None  # None: ANTHROPIC_BASE_URL, else the public API
    api_key_env: str = "ANTHROPIC_API_KEY"


class AnthropicGenerator(ModelGenerator):
    id = "anthropic"
    config_type = AnthropicConfig
    config: AnthropicConfig

    def _request_log(self, spec: ToolSpec) -> dict[str, Any]:
        return {"retry": spec.feedback is not None}

    def _ask(self, client: Any, prompt: Prompt, spec: ToolSpec) -> Answer:
        message = client.messages.create(**self._request(prompt))
        text, stop_reason, model = _read_message(message)
        problem: GenerationError | None = None
        if stop_reason == "refusal":
            details = _refusal_details(message)
            problem = GenerationRefused(
                f"{self.id}: the model declined to write {spec.name!r}"
                + (f" ({details['explanation']})" if details.get("explanation") else ""),
                generator=self.id,
                model=model,
                **details,
            )
        elif stop_reason in ("max_tokens", "model_context_window_exceeded"):
            problem = GenerationTruncated(
                f"{self.id}: the answer was cut off at max_tokens={self.config.max_tokens}; "
                "raise max_tokens or ask for a smaller tool",
                generator=self.id,
                model=model,
            )
        return Answer(text, model, {"stop_reason": stop_reason}, problem)

    def _api_key(self) -> str:
        key = self._environ.get(self.config.api_key_env, "").strip()
        if not key:
            raise GenerationNoKey(
                f"no Anthropic API key: set {self.config.api_key_env} "
                f"(export {self.config.api_key_env}=sk-ant-...), or choose another generator "
                "(--generator offline for the built-in templates, --generator openai with a "
                "local base URL, --generator file --from FILE)",
                generator=self.id,
                env=self.config.api_key_env,
            )
        return key

    def _client_for(self, key: str) -> Any:
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(
                api_key=key,
                base_url=self.config.base_url,
                max_retries=self.config.max_retries,
                timeout=self.config.timeout,
            )
        return self._client

    def _request(self, prompt: Prompt) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "system": prompt.system,
            "messages": [{"role": m.role, "content": m.text} for m in prompt.messages],
        }
        if self.config.effort is not None:
            request["output_config"] = {"effort": self.config.effort}
        if self.config.temperature is not None:
            request["extra_body"] = {"temperature": self.config.temperature}
        return request


def _read_message(message: Any) -> tuple[str, str | None, str | None]:
    """The text blocks joined, the stop reason and the model id of a Messages API answer."""
    blocks = getattr(message, "content", None)
    if not isinstance(blocks, list):
        raise GenerationError("the Messages API answer has no content list")
    text = "".join(
        block.text
        for block in blocks
        if getattr(block, "type", None) == "text" and isinstance(getattr(block, "text", None), str)
    )
    return text, getattr(message, "stop_reason", None), getattr(message, "model", None)


def _refusal_details(message: Any) -> dict[str, Any]:
    stop = getattr(message, "stop_details", None)
    details: dict[str, Any] = {}
    for field in ("category", "explanation"):
        value = getattr(stop, field, None)
        if isinstance(value, str):
            details[field] = value
    return details
