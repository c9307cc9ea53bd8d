"""The OpenAI-compatible generator: chat completions through the real `openai` client.

One class serves OpenAI itself and everything that speaks its chat-completions API at another
base URL: Ollama (`http://localhost:11434/v1`), vLLM (`http://localhost:8000/v1`), OpenRouter
(`https://openrouter.ai/api/v1` with `OPENROUTER_API_KEY`). A local or private-network base URL
needs no key (the servers ignore it; the client gets a placeholder); any other base URL needs
the key from `OPENAI_API_KEY` or the variable named in the config, checked before calling.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from dyntools.errors import GenerationError, GenerationNoKey, GenerationRefused, GenerationTruncated
from dyntools.generators.base import ToolSpec
from dyntools.generators.model import Answer, ModelGenerator
from dyntools.generators.models import DEFAULT_MODELS
from dyntools.generators.prompt import Prompt

DEFAULT_MODEL = DEFAULT_MODELS["openai"]
LOCAL_KEY_PLACEHOLDER = "not-needed"


@dataclass(frozen=True, slots=True)
class OpenAICompatConfig:
    model: str = DEFAULT_MODEL
    base_url: str | None = None  # None: OPENAI_BASE_URL, else the public OpenAI API
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float | None = None
    max_tokens: int | None = None  # sent as max_tokens, which Ollama, vLLM and routers read
    max_retries: int = 2
    timeout: float = 120.0


class OpenAICompatGenerator(ModelGenerator):
    id = "openai"
    config_type = OpenAICompatConfig
    config: OpenAICompatConfig

    @property
    def base_url(self) -> str | None:
        return self.config.base_url or self._environ.get("OPENAI_BASE_URL") or None

    @property
    def notice(self) -> str | None:
        """Only OpenAI's own model ids have lifecycle data; another endpoint's do not."""
        host = urlsplit(self.base_url).hostname if self.base_url else None
        if host is not None and host != "api.openai.com":
            return None
        return super().notice

    def _request_log(self, spec: ToolSpec) -> dict[str, Any]:
        return {"base_url": self.base_url}

    def _ask(self, client: Any, prompt: Prompt, spec: ToolSpec) -> Answer:
        completion = client.chat.completions.create(**self._request(prompt))
        text, finish_reason, refusal, model = _read_completion(completion)
        problem: GenerationError | None = None
        if refusal or finish_reason == "content_filter":
            problem = GenerationRefused(
                f"{self.id}: the model declined to write {spec.name!r}"
                + (f" ({refusal})" if refusal else " (content filter)"),
                generator=self.id,
                model=model,
                explanation=refusal,
            )
        elif finish_reason == "length":
            problem = GenerationTruncated(
                f"{self.id}: the answer was cut off at the token limit; raise max_tokens",
                generator=self.id,
                model=model,
            )
        return Answer(text, model, {"finish_reason": finish_reason}, problem)

    def _api_key(self) -> str:
        key = self._environ.get(self.config.api_key_env, "").strip()
        if key:
            return key
        if self.base_url and is_local_url(self.base_url):
            return LOCAL_KEY_PLACEHOLDER
        raise GenerationNoKey(
            f"no API key for {self.base_url or 'the OpenAI API'}: set {self.config.api_key_env}, "
            "or point --base-url at a local server that needs none (Ollama: "
            "http://localhost:11434/v1, vLLM: http://localhost:8000/v1)",
            generator=self.id,
            env=self.config.api_key_env,
        )

    def _client_for(self, key: str) -> Any:
        if self._client is None:
            import openai

            self._client = openai.OpenAI(
                api_key=key,
                base_url=self.base_url,
                max_retries=self.config.max_retries,
                timeout=self.config.timeout,
            )
        return self._client

    def _request(self, prompt: Prompt) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.config.model, "messages": prompt.as_chat()}
        if self.config.temperature is not None:
            request["temperature"] = self.config.temperature
        if self.config.max_tokens is not None:
            request["max_tokens"] = self.config.max_tokens
        return request


def is_local_url(url: str) -> bool:
    """True for loopback, private-network and `localhost` hosts (a key is not needed there)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def _read_completion(completion: Any) -> tuple[str, str | None, str | None, str | None]:
    """Text, finish reason, refusal and model of a chat completion's first choice."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise GenerationError("the chat completion has no choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    text = getattr(message, "content", None)
    refusal = getattr(message, "refusal", None)
    return (
        text if isinstance(text, str) else "",
        getattr(choice, "finish_reason", None),
        refusal if isinstance(refusal, str) and refusal.strip() else None,
        getattr(completion, "model", None),
    )
