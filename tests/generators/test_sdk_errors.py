"""SDK exceptions map to GenerationError leaves in one place, and the mapping is complete."""

from __future__ import annotations

import inspect
from types import ModuleType

import anthropic
import httpx2
import openai
import pytest

from dyntools import errors
from dyntools.generators.sdk_errors import (
    GENERIC_ON_PURPOSE,
    SDK_ERRORS,
    leaf_for,
    map_sdk_error,
)


def exported_exceptions(module: ModuleType) -> list[type[BaseException]]:
    found = {
        value
        for owner in (module, getattr(module, "_exceptions", None))
        if owner is not None
        for value in list(vars(owner).values())
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__.split(".")[0] == module.__name__
    }
    return sorted(found, key=lambda cls: cls.__name__)


SDK_EXCEPTIONS = [
    pytest.param(cls, id=f"{sdk.__name__}.{cls.__name__}")
    for sdk in (anthropic, openai)
    for cls in exported_exceptions(sdk)
]


@pytest.mark.parametrize("exc_type", SDK_EXCEPTIONS)
def test_every_sdk_exception_lands_somewhere_deliberate(exc_type) -> None:
    leaf = leaf_for(exc_type)
    assert issubclass(leaf, errors.GenerationError)
    if leaf is errors.GenerationError:
        assert exc_type.__name__ in GENERIC_ON_PURPOSE, (
            f"{exc_type.__module__}.{exc_type.__name__} is new: decide its reason in "
            "dyntools/generators/sdk_errors.py (SDK_ERRORS or GENERIC_ON_PURPOSE)"
        )


def test_table_names_exist_in_an_sdk() -> None:
    known = {cls.__name__ for sdk in (anthropic, openai) for cls in exported_exceptions(sdk)}
    known.add("WorkloadIdentityError")  # lives in anthropic.lib.credentials
    assert set(SDK_ERRORS) <= known
    assert known >= GENERIC_ON_PURPOSE


def status_error(sdk: ModuleType, cls_name: str, status: int) -> BaseException:
    request = httpx2.Request("POST", "http://127.0.0.1/v1/messages")
    response = httpx2.Response(status, request=request, headers={"request-id": "req_1"})
    return getattr(sdk, cls_name)(f"Error code: {status}", response=response, body=None)


@pytest.mark.parametrize("sdk", [anthropic, openai], ids=lambda m: m.__name__)
@pytest.mark.parametrize(
    ("cls_name", "status", "reason"),
    [
        ("AuthenticationError", 401, "auth"),
        ("PermissionDeniedError", 403, "auth"),
        ("RateLimitError", 429, "rate_limited"),
        ("InternalServerError", 500, "server_error"),
        ("InternalServerError", 529, "server_error"),
        ("BadRequestError", 400, "bad_request"),
        ("NotFoundError", 404, "bad_request"),
        ("UnprocessableEntityError", 422, "bad_request"),
        ("ConflictError", 409, "server_error"),
        # the SDKs' generic class for a status code they have no class for
        ("APIStatusError", 418, "bad_request"),
        ("APIStatusError", 502, "server_error"),
        ("APIStatusError", 504, "timeout"),
    ],
)
def test_status_errors(sdk, cls_name, status, reason) -> None:
    exc = status_error(sdk, cls_name, status)
    mapped = map_sdk_error(exc, generator="g", model="m")
    assert mapped.reason == reason
    assert mapped.station == "generate"
    assert mapped.details["status"] == status
    assert mapped.details["error_type"] == f"{sdk.__name__}.{cls_name}"
    assert mapped.details["generator"] == "g" and mapped.details["model"] == "m"


@pytest.mark.parametrize("sdk", [anthropic, openai], ids=lambda m: m.__name__)
def test_transport_errors(sdk) -> None:
    request = httpx2.Request("POST", "http://127.0.0.1/")
    timeout = map_sdk_error(sdk.APITimeoutError(request=request), generator="g", model=None)
    assert isinstance(timeout, errors.GenerationTimeout)
    connection = map_sdk_error(sdk.APIConnectionError(request=request), generator="g", model=None)
    assert isinstance(connection, errors.GenerationConnectionError)


def test_anthropic_specific_subclasses_follow_their_parent() -> None:
    assert leaf_for(anthropic.OverloadedError) is errors.GenerationServerError
    assert leaf_for(anthropic.GatewayTimeoutError) is errors.GenerationTimeout
    assert leaf_for(anthropic.ContractSpendLimitReachedError) is errors.GenerationRateLimited


def test_openai_finish_reason_errors() -> None:
    assert leaf_for(openai.LengthFinishReasonError) is errors.GenerationTruncated
    assert leaf_for(openai.ContentFilterFinishReasonError) is errors.GenerationRefused


@pytest.mark.parametrize("exc", [TypeError("bad kwarg"), ValueError("x"), KeyError("k")])
def test_anything_else_is_a_plain_generation_error(exc) -> None:
    mapped = map_sdk_error(exc, generator="g", model=None)
    assert type(mapped) is errors.GenerationError
    assert mapped.reason == "generation_failed"


def test_generation_errors_pass_through_with_context() -> None:
    original = errors.GenerationNoCode("no code")
    mapped = map_sdk_error(original, generator="g", model="m")
    assert mapped is original and mapped.details["generator"] == "g"
