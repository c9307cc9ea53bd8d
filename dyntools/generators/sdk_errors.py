"""The one place where model-SDK exceptions become `GenerationError` leaves.

Both SDKs (`anthropic` 2.x and `openai` 3.x) are generated from the same template and share
exception names, so one table keyed by class name serves both. A class is looked up along its
MRO, so an SDK subclass (`anthropic.OverloadedError`, `openai.OAuthError`) lands on its nearest
listed ancestor. `tests/generators/test_sdk_errors.py` checks that every exception class either
SDK exports lands somewhere deliberate, so a new SDK release with a new error fails the suite
until someone decides what it means.

The SDK retries 408/409/429/5xx and connection errors itself (`max_retries`); what arrives
here is the final failure.
"""

from __future__ import annotations

from types import MappingProxyType

from dyntools.errors import (
    GenerationAuthError,
    GenerationBadRequest,
    GenerationConnectionError,
    GenerationError,
    GenerationRateLimited,
    GenerationRefused,
    GenerationServerError,
    GenerationTimeout,
    GenerationTruncated,
)

SDK_PACKAGES = frozenset({"anthropic", "openai"})

SDK_ERRORS: MappingProxyType[str, type[GenerationError]] = MappingProxyType(
    {
        # transport
        "APITimeoutError": GenerationTimeout,
        "APIConnectionError": GenerationConnectionError,
        # status codes
        "AuthenticationError": GenerationAuthError,  # 401
        "PaymentRequiredError": GenerationAuthError,  # 402: billing
        "PermissionDeniedError": GenerationAuthError,  # 403
        "CredentialsError": GenerationAuthError,  # a configured profile could not be read
        "WorkloadIdentityError": GenerationAuthError,
        "SubjectTokenProviderError": GenerationAuthError,
        "RateLimitError": GenerationRateLimited,  # 429, spend and ramp limits
        "RequestTimeoutError": GenerationTimeout,  # 408
        "GatewayTimeoutError": GenerationTimeout,  # 504
        "ClientClosedRequestError": GenerationConnectionError,  # 499
        "InternalServerError": GenerationServerError,  # 500 and every 5xx subclass
        "ConflictError": GenerationServerError,  # 409: a transient lock on the server side
        "BadRequestError": GenerationBadRequest,  # 400
        "NotFoundError": GenerationBadRequest,  # 404: unknown model or wrong base URL
        "UnprocessableEntityError": GenerationBadRequest,  # 422
        "ContentTooLargeError": GenerationBadRequest,  # 413
        "RequestHeaderFieldsTooLargeError": GenerationBadRequest,  # 431
        "PreconditionFailedError": GenerationBadRequest,  # 412
        # answers the SDK itself refuses to hand back
        "LengthFinishReasonError": GenerationTruncated,
        "ContentFilterFinishReasonError": GenerationRefused,
    }
)

# Classes that deliberately map to the plain `GenerationError` ("generation_failed"): roots of
# the SDK trees (a status code decides, see `_by_status`), and errors of APIs dyntools never
# calls (webhooks, websockets) or of the SDK's own misuse.
GENERIC_ON_PURPOSE = frozenset(
    {
        "AnthropicError",
        "OpenAIError",
        "APIError",
        "APIStatusError",
        "APIResponseValidationError",  # the endpoint answered, but not in the API's shape
        "APIWebhookValidationError",
        "InvalidWebhookSignatureError",
        "RetryableError",
        "WebSocketConnectionClosedError",
        "WebSocketQueueFullError",
        "_AmbiguousModuleClientUsageError",
    }
)


def leaf_for(exc_type: type[BaseException]) -> type[GenerationError]:
    """The `GenerationError` leaf for an exception class (plain `GenerationError` if unknown)."""
    for klass in exc_type.__mro__:
        if klass.__module__.split(".")[0] in SDK_PACKAGES and klass.__name__ in SDK_ERRORS:
            return SDK_ERRORS[klass.__name__]
    return GenerationError


def map_sdk_error(exc: BaseException, *, generator: str, model: str | None) -> GenerationError:
    """Translate any exception raised while calling a model into a `GenerationError` leaf.

    Raise the result `from exc` so the original stays attached for debugging.
    """
    if isinstance(exc, GenerationError):
        exc.details.setdefault("generator", generator)
        exc.details.setdefault("model", model)
        return exc
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    leaf = leaf_for(type(exc))
    if leaf is GenerationError and status is not None:
        leaf = _by_status(status)
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    details: dict[str, object] = {
        "generator": generator,
        "model": model,
        "error_type": f"{type(exc).__module__.split('.')[0]}.{type(exc).__name__}",
    }
    if status is not None:
        details["status"] = status
    request_id = getattr(exc, "request_id", None)
    if isinstance(request_id, str):
        details["request_id"] = request_id
    return leaf(f"{generator}: {_HINTS.get(leaf.reason, '')}{message}", **details)


def _by_status(status: int) -> type[GenerationError]:
    """For status codes the SDK has no class for (an unusual proxy, a 418)."""
    if status in (401, 402, 403):
        return GenerationAuthError
    if status == 429:
        return GenerationRateLimited
    if status in (408, 504):
        return GenerationTimeout
    if status >= 500:
        return GenerationServerError
    if 400 <= status < 500:
        return GenerationBadRequest
    return GenerationError


_HINTS = {
    "auth": "the API key was refused (check the key and its permissions): ",
    "rate_limited": "rate limited even after retries (wait, or raise --retries): ",
    "server_error": "the model endpoint failed even after retries: ",
    "timeout": "the model did not answer in time (raise the timeout): ",
    "connection_error": "cannot reach the model endpoint (check the base URL): ",
    "bad_request": "the request was refused (check the model id and base URL): ",
}
