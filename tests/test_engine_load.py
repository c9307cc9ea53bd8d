"""What start-up leaves out: jsonschema-rs loads without email.utils (and what that brings:
socket, random, urllib) and without typing, the stand-ins it sees answering as the real
modules do; the findings digest without OpenSSL, the same as hashlib's."""

from __future__ import annotations

import datetime
import email.utils
import json

from hypothesis import given
from hypothesis import strategies as st

from dyntools.base.jsonschema_safe import _parsedate_to_datetime
from tests.fresh import fresh_stdout

PROBE = """
import json, sys
from dyntools.base.jsonschema_safe import compile_validator, validation_error
validator = compile_validator({"type": "object", "properties": {"when": {
    "type": "string", "format": "date-time"}}, "required": ["when"]})
loaded = sorted(m for m in ("email", "email.utils", "socket", "random", "urllib.parse", "calendar",
                            "typing") if m in sys.modules)
stand_in_left = getattr(sys.modules.get("email"), "utils", None) is not None
import email.utils
real = email.utils.parsedate_to_datetime.__module__
import typing
real_typing = typing.__file__.endswith("typing.py") and typing.Sequence.__module__
print(json.dumps([loaded, stand_in_left, [real, real_typing],
                  validation_error(validator, {}) is not None,
                  validation_error(validator, {"when": "x"}) is None]))
"""


def test_the_engine_loads_without_email_utils_and_leaves_the_real_one() -> None:
    loaded, stand_in_left, real, refuses_missing, formats_not_asserted = json.loads(
        fresh_stdout(PROBE))
    assert loaded == []
    assert stand_in_left is False
    assert real == ["email.utils", "typing"]
    assert refuses_missing and formats_not_asserted


@given(st.datetimes(min_value=datetime.datetime(1900, 1, 1),
                    max_value=datetime.datetime(9999, 12, 31)))
def test_the_stand_in_answers_build_dates_as_email_utils_does(when: datetime.datetime) -> None:
    text = email.utils.format_datetime(when.replace(microsecond=0,
                                                    tzinfo=datetime.UTC))
    assert _parsedate_to_datetime(text) == email.utils.parsedate_to_datetime(text)


@given(st.one_of(st.text(max_size=40), st.sampled_from([
    "Thu, 31 Feb 2026 07:50:16 +0000", "Thu, 12 Nov 2026 07:50:16 +0100",
    "Thu, 12 Xyz 2026 07:50:16 +0000", "12 Nov 2026 07:50:16 GMT"])))
def test_any_other_text_goes_to_the_real_function(text: str) -> None:
    def outcome(function: object) -> object:
        try:
            return function(text)  # type: ignore[operator]
        except Exception as exc:  # both sides must fail alike
            return type(exc)

    assert outcome(_parsedate_to_datetime) == outcome(email.utils.parsedate_to_datetime)


def test_gate_values_stay_immutable_comparable_and_picklable() -> None:
    import pickle

    import pytest

    from dyntools.gate.capabilities import Capabilities
    from dyntools.gate.findings import Finding, GateReport

    finding = Finding(3, 1, "DT401", "eval")
    report = GateReport("a.py", "00", (finding,), "pd", ("x = 1",), "a", "[]", Capabilities())
    same = GateReport("a.py", "00", (finding,), "pd")  # source_lines and metadata not compared
    assert report == same and hash(report) == hash(same)
    assert report != same.replace(findings=())
    assert pickle.loads(pickle.dumps(report)) == report
    assert pickle.loads(pickle.dumps(report)).source_lines == ("x = 1",)
    assert report.replace(path="b.py").declared_capabilities == Capabilities()
    for value, field in ((report, "path"), (finding, "line")):
        with pytest.raises(AttributeError):
            setattr(value, field, None)
    with pytest.raises(TypeError):
        report.replace(colour="red")
    assert sorted([Finding(2, 5, "DT1", "b"), Finding(2, 1, "DT9", "a")])[0].col == 1
    assert not Capabilities() and "source_lines" not in repr(report)


def test_with_another_thread_alive_the_real_modules_serve() -> None:
    probe = ("import sys, threading\n"
             "stop = threading.Event()\n"
             "threading.Thread(target=stop.wait, daemon=True).start()\n"
             "assert 'typing' not in sys.modules\n"
             "from dyntools.base.jsonschema_safe import _engine\n_engine()\n"
             "print('email.utils' in sys.modules, 'typing' in sys.modules)\nstop.set()\n")
    assert fresh_stdout(probe) == "True True"


def test_a_loaded_typing_is_left_alone() -> None:
    probe = ("import sys, typing\n"
             "from dyntools.base.jsonschema_safe import _engine\n_engine()\n"
             "print(sys.modules['typing'] is typing)\n")
    assert fresh_stdout(probe) == "True"


def test_the_typing_stand_in_hands_any_other_name_to_the_real_typing() -> None:
    # In a fresh interpreter: the stand-in is what `import typing` finds until a name other
    # than TYPE_CHECKING is asked of it; from then on the real module serves everyone.
    probe = ("import sys\n"
             "from dyntools.base.jsonschema_safe import _TypingStandIn\n"
             "stand_in = _TypingStandIn('typing')\nsys.modules['typing'] = stand_in\n"
             "from typing import TYPE_CHECKING\n"
             "first = [TYPE_CHECKING, sys.modules['typing'] is stand_in]\n"
             "from typing import Sequence\n"
             "import typing\n"
             "print([*first, typing is not stand_in, Sequence is typing.Sequence,\n"
             "       stand_in.Any is typing.Any, hasattr(stand_in, '__path__')])\n")
    assert fresh_stdout(probe) == "[False, True, True, True, True, False]"
