"""dyntools.tuples.NamedTuple makes, from the same class body, the class typing.NamedTuple
makes: the same fields, defaults, annotations, methods, docstring, behaviour and errors."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import dyntools.tuples

BODIES = {
    "plain": '''
class Point(NamedTuple):
    x: int
    y: int
''',
    "defaults, doc, methods, property, class attribute": '''
class Rule(NamedTuple):
    """A rule."""

    code: str
    title: str = "untitled"
    tags: tuple[str, ...] = ()
    weight: float | None = None
    KIND = "rule"

    def shout(self) -> str:
        return self.code.upper()

    @property
    def tagged(self) -> bool:
        return bool(self.tags)

    @classmethod
    def of(cls, code: str) -> Rule:
        return cls(code)

    def __repr__(self) -> str:
        return f"<{self.code}>"
''',
    "no fields": '''
class Nothing(NamedTuple):
    pass
''',
}


def _make(body: str, named_tuple: Any) -> type:
    namespace: dict[str, Any] = {"NamedTuple": named_tuple, "__name__": "tests.made"}
    exec(compile("from __future__ import annotations\n" + body, "<body>", "exec"), namespace)
    return next(value for key, value in namespace.items()
                if isinstance(value, type) and key not in ("NamedTuple",))


def _both(body: str) -> tuple[type, type]:
    import typing

    return _make(body, typing.NamedTuple), _make(body, dyntools.tuples.NamedTuple)


@pytest.mark.parametrize("body", BODIES.values(), ids=list(BODIES))
def test_the_same_class_from_the_same_body(body: str) -> None:
    theirs, ours = _both(body)
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__", "_fields",
                      "_field_defaults", "__bases__", "__slots__"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    # the annotations as written: typing wraps each string in a ForwardRef, compiled
    assert ours.__annotations__ == {name: ref.__forward_arg__
                                    for name, ref in theirs.__annotations__.items()}
    assert sorted(set(vars(ours)) - {"__new__"}) == sorted(set(vars(theirs)) - {"__new__"})
    assert issubclass(ours, tuple) and type(ours) is type(theirs) is type


def test_instances_behave_alike() -> None:
    theirs, ours = _both(BODIES["defaults, doc, methods, property, class attribute"])
    for made in (theirs, ours):
        rule: Any = made("DT1", tags=("a",))
        assert (rule.code, rule.title, rule.tags, rule.weight) == ("DT1", "untitled", ("a",),
                                                                   None)
        assert (rule.shout(), rule.tagged, made.KIND, repr(rule)) == ("DT1", True, "rule",
                                                                      "<DT1>")
        assert made.of("x") == ("x", "untitled", (), None) == made._make(["x", "untitled",
                                                                          (), None])
        assert rule._replace(title="t")._asdict() == {"code": "DT1", "title": "t",
                                                     "tags": ("a",), "weight": None}
        assert hash(rule) == hash(tuple(rule)) and rule == tuple(rule)
        with pytest.raises(AttributeError):
            rule.code = "x"
        with pytest.raises(AttributeError):
            rule.other = 1
        with pytest.raises(TypeError):
            made()


@pytest.mark.parametrize("body", [
    "class Bad(NamedTuple):\n    a: int = 1\n    b: int\n",
    "class Bad(NamedTuple):\n    a: int = 1\n    b: int = 2\n    c: int\n",
    "class Bad(NamedTuple):\n    a: int\n    def _replace(self):\n        pass\n",
    "class Bad(NamedTuple):\n    a: int\n    __slots__ = ('a',)\n",
])
def test_what_typing_refuses_is_refused_alike(body: str) -> None:
    import typing

    with pytest.raises((TypeError, AttributeError)) as theirs:
        _make(body, typing.NamedTuple)
    with pytest.raises((TypeError, AttributeError)) as ours:
        _make(body, dyntools.tuples.NamedTuple)
    assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


def test_only_the_class_form_is_made() -> None:
    with pytest.raises(TypeError, match="class Name"):
        dyntools.tuples.NamedTuple("Point", [("x", int)])
    with pytest.raises(TypeError, match="only inherit from a NamedTuple"):
        _make("class Bad(NamedTuple, dict):\n    a: int\n", dyntools.tuples.NamedTuple)


def test_dyntools_values_pickle_and_compare_as_before() -> None:
    from dyntools.findings import RULES
    from dyntools.gate.policy import load_policy
    from dyntools.sandbox.limits import SandboxLimits

    rule = RULES["DT001"]
    assert pickle.loads(pickle.dumps(rule)) == rule and type(rule).__module__ == (
        "dyntools.findings")
    limits = SandboxLimits(timeout_s=2.0)
    assert pickle.loads(pickle.dumps(limits)) == limits
    assert type(pickle.loads(pickle.dumps(limits))) is SandboxLimits
    policy = load_policy()
    assert pickle.loads(pickle.dumps(policy.limits)) == policy.limits
