"""How a hand-written catalog function is called: one params dict, or typed keyword arguments.

    def add_numbers(params): ...                  # dict style: called as f(params)
    def multiply(a: float, b: float) -> float: ... # typed style: called as f(a=..., b=...)

A typed signature yields its params JSON Schema through pydantic (`pydantic.create_model`
over the parameters), and each call validates the params with the same model before calling
the function with keyword arguments, so a `datetime` or a nested model arrives as one. A
typed function may return any JSON value; a result that is not an object is wrapped as
`{"result": value}`.

Everything that cannot work is refused here, when the decorator runs, with a message naming
the function: async functions, `*args`/`**kwargs`, positional-only parameters, a parameter
without an annotation, an annotation pydantic cannot describe, or an explicit `params`
schema given to a function that does not take one params dict.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, get_origin

from dyntools.errors import InvalidParams, UsageError

DICT_STYLE, KEYWORD_STYLE = "dict", "keywords"
RESULT_KEY = "result"


@dataclass(frozen=True, slots=True)
class CallShape:
    """How to call a function: its style, its schema (typed style) and its params model."""

    style: str
    schema: dict[str, Any] | None
    model: Any = None  # the pydantic model of a typed signature

    def invoke(self, func: Callable[..., Any], params: dict[str, Any]) -> Any:
        if self.style == DICT_STYLE:
            return func(params)
        import pydantic

        try:
            validated = self.model.model_validate(params)
        except pydantic.ValidationError as exc:
            problems: list[Any] = list(exc.errors())
            first: dict[str, Any] = dict(problems[0]) if problems else {}
            where = "/".join(str(p) for p in first.get("loc", ())) or "(root)"
            raise InvalidParams(f"params do not match the tool's signature at {where}: "
                                f"{first.get('msg', 'invalid')}", path=where) from None
        kwargs = {name: getattr(validated, name) for name in type(validated).model_fields}
        result = func(**kwargs)
        return result if isinstance(result, Mapping) else {RESULT_KEY: result}


def call_shape(name: str, func: Callable[..., Any], *, explicit_params: bool) -> CallShape:
    """The way `func` takes its params, checked now (decoration time), not at the first call."""
    if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
        raise UsageError(f"catalog tool {name!r}: async functions are not supported; "
                         "wrap it in a plain function", tool=name)
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"catalog tool {name!r}: cannot read its signature ({exc})",
                         tool=name) from None
    parameters = list(signature.parameters.values())
    for parameter in parameters:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise UsageError(f"catalog tool {name!r}: *args and **kwargs cannot be described "
                             "as a params schema; name each parameter", tool=name)
    if _is_dict_style(parameters):
        return CallShape(DICT_STYLE, None)
    if explicit_params:
        raise UsageError(
            f"catalog tool {name!r}: params= is for a function that takes one params dict, "
            f"f(params); this one takes ({', '.join(p.name for p in parameters)}). Drop "
            "params= (the schema comes from the annotations) or take one dict", tool=name)
    return _keyword_shape(name, func, parameters)


def _is_dict_style(parameters: list[inspect.Parameter]) -> bool:
    """One positional parameter, unannotated or annotated as a dict/Mapping."""
    if len(parameters) != 1:
        return False
    only = parameters[0]
    if only.kind is only.KEYWORD_ONLY:
        return False
    annotation = only.annotation
    if annotation is inspect.Parameter.empty:
        return True
    if isinstance(annotation, str):  # `from __future__ import annotations`
        return annotation.replace(" ", "").split("[")[0] in (
            "dict", "Dict", "Mapping", "typing.Mapping", "typing.Dict",
            "collections.abc.Mapping", "MutableMapping")
    origin = get_origin(annotation) or annotation
    return origin in (dict, Mapping) or (isinstance(origin, type) and issubclass(origin, Mapping))


def _keyword_shape(name: str, func: Callable[..., Any],
                   parameters: list[inspect.Parameter]) -> CallShape:
    import pydantic

    try:
        hints = _type_hints(func)
    except Exception as exc:  # an annotation naming something undefined
        raise UsageError(f"catalog tool {name!r}: cannot resolve its annotations ({exc})",
                         tool=name) from None
    fields: dict[str, Any] = {}
    for parameter in parameters:
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise UsageError(f"catalog tool {name!r}: parameter {parameter.name!r} is "
                             "positional-only; tools are called with keyword arguments",
                             tool=name)
        if parameter.name not in hints:
            raise UsageError(f"catalog tool {name!r}: parameter {parameter.name!r} has no type "
                             "annotation (annotate every parameter, or take one params dict)",
                             tool=name)
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (hints[parameter.name], default)
    try:
        model = pydantic.create_model(
            f"{name}_params", __config__=pydantic.ConfigDict(extra="forbid"), **fields)
        schema = model.model_json_schema()
    except Exception as exc:  # pydantic: an annotation it cannot validate or describe
        raise UsageError(f"catalog tool {name!r}: its annotations cannot be described as a "
                         f"JSON Schema ({type(exc).__name__}: {_first_line(exc)})",
                         tool=name) from None
    schema.setdefault("properties", {})
    return CallShape(KEYWORD_STYLE, schema, model)


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    import typing

    target = inspect.unwrap(func)
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        target = getattr(target, "__call__", target)  # noqa: B004 - a callable object's hints
    return typing.get_type_hints(target)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""
