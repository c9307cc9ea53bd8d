"""What the network generators share: key, prompt, one SDK call, the answer as source.

Each subclass says how to build its client and request, how to read its SDK's answer
(`_ask`), and how its key is found; everything else (logging, mapping every SDK failure
through `map_sdk_error`, refusing a refusal or a cut-off answer, extracting the code) is here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dyntools.base.log import get_logger
from dyntools.errors import GenerationError
from dyntools.gate.policy import Policy
from dyntools.generators.base import GeneratedSource, ToolSpec, excerpt
from dyntools.generators.extract import extract_code
from dyntools.generators.models import model_notice
from dyntools.generators.prompt import Prompt, build_prompt
from dyntools.generators.sdk_errors import map_sdk_error
from dyntools.registry.policyload import load_allowlist


@dataclass(frozen=True, slots=True)
class Answer:
    """A model's answer as read from its SDK object."""

    text: str
    model: str | None
    log: dict[str, Any] = field(default_factory=dict)  # logged with `model_answer`
    problem: GenerationError | None = None  # a refusal or a cut-off answer, raised after logging


class ModelGenerator:
    id: ClassVar[str]
    accepts_feedback = True
    config_type: ClassVar[type]
    config: Any

    def __init__(
        self,
        config: Any = None,
        *,
        policy: Policy | None = None,
        environ: Mapping[str, str] | None = None,
        capabilities: Any = None,
    ) -> None:
        self.config = config or self.config_type()
        self.policy = policy or load_allowlist()
        # The operator's capability policy (dyntools.capabilities.CapabilityPolicy): what
        # the prompt may offer a tool through `host`; None offers nothing.
        self.capabilities = capabilities
        self._environ = environ if environ is not None else os.environ
        self._client: Any = None
        self._noticed = False

    @property
    def model(self) -> str:
        model: str = self.config.model
        return model

    @property
    def notice(self) -> str | None:
        """One line when the installed SDK marks this model deprecated or retired."""
        return model_notice(self.id, self.model)

    def generate(self, spec: ToolSpec) -> GeneratedSource:
        key = self._api_key()
        prompt = build_prompt(spec, self.policy, self.capabilities)
        log = get_logger("generate", generator=self.id, model=self.model, tool=spec.name)
        notice = self.notice
        if notice is not None and not self._noticed:
            self._noticed = True
            log.warning("model_deprecated", notice=notice)
        log.info("model_request", prompt_sha256=prompt.sha256, **self._request_log(spec))
        try:
            answer = self._ask(self._client_for(key), prompt, spec)
        except Exception as exc:  # every SDK failure leaves through the one mapping
            error = map_sdk_error(exc, generator=self.id, model=self.model)
            log.warning("model_failed", reason=error.reason, error=error.message)
            raise error from exc
        log.info("model_answer", chars=len(answer.text), **answer.log)
        if answer.problem is not None:
            raise answer.problem
        return GeneratedSource(
            source=extract_code(answer.text),
            generator=self.id,
            model=answer.model,
            prompt_sha256=prompt.sha256,
            raw_excerpt=excerpt(answer.text),
        )

    def _request_log(self, spec: ToolSpec) -> dict[str, Any]:
        return {}

    def _api_key(self) -> str:
        raise NotImplementedError

    def _client_for(self, key: str) -> Any:
        raise NotImplementedError

    def _ask(self, client: Any, prompt: Prompt, spec: ToolSpec) -> Answer:
        raise NotImplementedError
