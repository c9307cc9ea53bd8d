"""dyntools.base.tuples.NamedTuple makes, from the same class body, the class typing.NamedTuple
makes: the same fields, defaults, annotations, methods, docstring, behaviour and errors."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import dyntools.base.tuples

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

    return _make(body, typing.NamedTuple), _make(body, dyntools.base.tuples.NamedTuple)


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
        _make(body, dyntools.base.tuples.NamedTuple)
    assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


def test_only_the_class_form_is_made() -> None:
    with pytest.raises(TypeError, match="class Name"):
        dyntools.base.tuples.NamedTuple("Point", [("x", int)])
    with pytest.raises(TypeError, match="only inherit from a NamedTuple"):
        _make("class Bad(NamedTuple, dict):\n    a: int\n", dyntools.base.tuples.NamedTuple)


def test_dyntools_values_pickle_and_compare_as_before() -> None:
    from dyntools.gate.findings import RULES
    from dyntools.gate.policy import load_policy
    from dyntools.sandbox.limits import SandboxLimits

    rule = RULES["DT001"]
    assert pickle.loads(pickle.dumps(rule)) == rule and type(rule).__module__ == (
        "dyntools.gate.findings")
    limits = SandboxLimits(timeout_s=2.0)
    assert pickle.loads(pickle.dumps(limits)) == limits
    assert type(pickle.loads(pickle.dumps(limits))) is SandboxLimits
    policy = load_policy()
    assert pickle.loads(pickle.dumps(policy.limits)) == policy.limits


# dyntools.base.tuples.namedtuple against collections.namedtuple, field list by field list.
SHAPES = [
    ("Empty", [], []),
    ("One", ["x"], []),
    ("OneDefault", ["x"], [None]),
    ("Point", ["x", "y"], []),
    ("Rule", ["code", "title", "tags", "weight"], ["untitled", (), None]),
    ("Wide", [f"f{i}" for i in range(16)], list(range(5))),  # past the templates
    ("Widest", [f"f{i}" for i in range(17)], []),
]


def _method_facts(made: Any) -> dict[str, Any]:
    import inspect

    facts: dict[str, Any] = {}
    for name in ("__new__", "_make", "_replace", "__repr__", "_asdict", "__getnewargs__"):
        method = getattr(made, name)
        function = getattr(method, "__func__", method)
        facts[name] = (function.__name__, function.__qualname__, function.__doc__,
                       function.__module__ if name == "__new__" else None,
                       getattr(function, "__defaults__", None),
                       str(inspect.signature(method)))
    return facts


def _outcome(call: Any, made: Any) -> Any:
    try:
        value = call(made)
    except (TypeError, ValueError) as exc:
        return type(exc), str(exc)
    return type(value).__mro__[1:], tuple(value) if isinstance(value, tuple) else value


@pytest.mark.parametrize(("typename", "fields", "defaults"), SHAPES, ids=[s[0] for s in SHAPES])
def test_namedtuple_makes_collections_class(typename: str, fields: list[str],
                                            defaults: list[Any]) -> None:
    import collections

    theirs: Any = collections.namedtuple(typename, fields, defaults=defaults,
                                         module="tests.made")
    ours: Any = dyntools.base.tuples.namedtuple(typename, fields, defaults, "tests.made")
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__", "_fields",
                      "_field_defaults", "__match_args__", "__slots__", "__bases__"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert sorted(vars(ours)) == sorted(vars(theirs))
    assert _method_facts(ours) == _method_facts(theirs)
    for name in fields:
        assert vars(ours)[name].__doc__ == vars(theirs)[name].__doc__
    values = list(range(len(fields)))
    keywords = dict(zip(fields, values, strict=True))
    calls = [
        lambda made: made(*values), lambda made: made(**keywords), lambda made: made(),
        lambda made: made(*values, 99), lambda made: made(*values[:1], **keywords),
        lambda made: made(*values, nope=1), lambda made: made._make(values),
        lambda made: made._make([*values, 1]), lambda made: made(*values)._replace(nope=2),
        lambda made: made(*values)._replace(**dict(list(keywords.items())[:1])),
        lambda made: made(*values)._asdict(), lambda made: repr(made(*values)),
        lambda made: made(*values).__getnewargs__(),
        lambda made: made(*values[:len(fields) - len(defaults)]),
    ]
    for call in calls:
        assert _outcome(call, ours) == _outcome(call, theirs)


@pytest.mark.parametrize(("typename", "fields"), [
    ("Bad", ["_x"]), ("Bad", ["class"]), ("Bad", ["a", "a"]), ("Bad", ["1a"]),
    ("class", ["a"]), ("Bad-name", ["a"]),
])
def test_namedtuple_refuses_what_collections_refuses(typename: str, fields: list[str]) -> None:
    import collections

    with pytest.raises(ValueError) as theirs:
        collections.namedtuple(typename, fields)
    with pytest.raises(ValueError) as ours:
        dyntools.base.tuples.namedtuple(typename, fields, [], "tests.made")
    assert str(ours.value) == str(theirs.value)


def test_more_defaults_than_fields_is_refused_as_collections_refuses_it() -> None:
    import collections

    with pytest.raises(TypeError) as theirs:
        collections.namedtuple("Bad", ["a"], defaults=[1, 2])
    with pytest.raises(TypeError) as ours:
        dyntools.base.tuples.namedtuple("Bad", ["a"], [1, 2], "tests.made")
    assert str(ours.value) == str(theirs.value)


Pickled = dyntools.base.tuples.namedtuple("Pickled", ["a", "b"], [2], __name__)


def test_a_namedtuple_pickles_and_copies() -> None:
    import copy

    value = Pickled(1)
    assert pickle.loads(pickle.dumps(value)) == value == (1, 2)
    assert type(pickle.loads(pickle.dumps(value))) is Pickled
    assert copy.copy(value) == value and copy.deepcopy(value) == value
    match value:
        case Pickled(a, b):
            assert (a, b) == (1, 2)
        case _:
            raise AssertionError("no match")
