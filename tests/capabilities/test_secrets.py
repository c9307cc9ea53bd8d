"""Secrets: added by the host only where the policy sends them, and never seen again."""

from __future__ import annotations

import base64
import json
import re
import urllib.parse

import pytest

from dyntools.capabilities import HttpFailure
from dyntools.capabilities.redaction import Redactor, forms
from dyntools.errors import CapabilityViolation

from .conftest import TOKEN, get


def secret_for(*hosts, header="Authorization", template="Bearer {}"):
    return {"DEMO_TOKEN": {"env": "DEMO_TOKEN", "hosts": list(hosts), "header": header,
                           "template": template}}


def leaks(value) -> list[str]:
    """The forms of TOKEN found in `value` (any JSON-able structure, or an exception)."""
    text = json.dumps(value, default=repr) if not isinstance(value, str) else value
    found = [form for form in (TOKEN, urllib.parse.quote(TOKEN),
                               base64.b64encode(TOKEN.encode()).decode())
             if form in text]
    if base64.b64encode(f"user:{TOKEN}".encode()).decode() in text:
        found.append("basic")
    return found


def test_a_declared_secret_is_sent_to_its_host_and_echoed_back_redacted(harness, server):
    broker = harness.broker([server.hostport], secrets=secret_for(server.hostport))
    session = harness.session(broker, [server.hostport], secrets=["DEMO_TOKEN"])
    answer = get(session, server.url("/echo-secret"))
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {TOKEN}"
    assert leaks(answer) == []
    assert answer["headers"]["x-echo"] == "[redacted:DEMO_TOKEN]"
    assert answer["headers"]["set-cookie"] == "t=[redacted:DEMO_TOKEN]"
    assert "token=[redacted:DEMO_TOKEN]" in answer["text"]
    assert "quoted=[redacted:DEMO_TOKEN]" in answer["text"]
    assert "b64=[redacted:DEMO_TOKEN]" in answer["text"]
    assert "hex=[redacted:DEMO_TOKEN]" in answer["text"]
    assert '{"t": "[redacted:DEMO_TOKEN]"}' in answer["text"]
    assert "basic=" in answer["text"] and leaks(answer["text"]) == []
    assert leaks(harness.events) == []


def test_a_secret_in_an_error_response_is_redacted(harness, server):
    broker = harness.broker([server.hostport], secrets=secret_for(server.hostport))
    session = harness.session(broker, [server.hostport], secrets=["DEMO_TOKEN"])
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/echo-secret?status=500"))
    assert info.value.status == 500
    assert leaks(info.value.text) == [] and leaks(info.value.message) == []
    assert "[redacted:DEMO_TOKEN]" in info.value.text
    assert leaks(harness.events) == []


def test_a_secret_in_a_redirect_target_is_redacted_from_the_violation(harness, server):
    broker = harness.broker([server.hostport], secrets=secret_for(server.hostport))
    session = harness.session(broker, [server.hostport], secrets=["DEMO_TOKEN"])
    with pytest.raises(CapabilityViolation) as info:
        get(session, server.url(f"/redirect?to=http://{TOKEN.lower()}.evil.test/"))
    assert leaks(info.value.message.replace("[redacted:DEMO_TOKEN]", "")) == []
    assert "[redacted:DEMO_TOKEN]" in info.value.message
    assert leaks(json.dumps(info.value.details)) == []
    assert leaks(harness.events) == []


def test_session_redact_covers_every_policy_secret(harness, server):
    broker = harness.broker([server.hostport], secrets=secret_for(server.hostport))
    session = harness.session(broker, [server.hostport])  # not even declared
    assert session.redact(f"x {TOKEN} y") == "x [redacted:DEMO_TOKEN] y"


def test_a_secret_is_never_sent_to_another_allowed_host(harness, server, other_server):
    hosts = [server.hostport, other_server.hostport]
    broker = harness.broker(hosts, private=["127.0.0.0/8"], secrets=secret_for(server.hostport))
    session = harness.session(broker, hosts, secrets=["DEMO_TOKEN"])
    get(session, other_server.url("/echo"))
    assert "authorization" not in other_server.requests[0]["headers"]


def test_a_secret_does_not_follow_a_redirect_to_another_allowed_host(harness, server,
                                                                     other_server):
    hosts = [server.hostport, other_server.hostport]
    broker = harness.broker(hosts, private=["127.0.0.0/8"], secrets=secret_for(server.hostport))
    session = harness.session(broker, hosts, secrets=["DEMO_TOKEN"])
    answer = get(session, server.url("/redirect?to=" + other_server.url("/echo")))
    assert answer["status"] == 200
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {TOKEN}"
    assert "authorization" not in other_server.requests[0]["headers"]
    assert TOKEN not in json.dumps(other_server.requests)


def test_a_tool_authorization_header_does_not_cross_origins(harness, server, other_server):
    hosts = [server.hostport, other_server.hostport]
    broker = harness.broker(hosts, private=["127.0.0.0/8"])
    session = harness.session(broker, hosts)
    get(session, server.url("/redirect?to=" + other_server.url("/echo")),
        headers={"Authorization": "Bearer tool-own", "X-Keep": "1"})
    assert server.requests[0]["headers"]["authorization"] == "Bearer tool-own"
    assert "authorization" not in other_server.requests[0]["headers"]
    assert other_server.requests[0]["headers"]["x-keep"] == "1"


def test_an_undeclared_secret_is_not_sent(harness, server):
    broker = harness.broker([server.hostport], secrets=secret_for(server.hostport))
    session = harness.session(broker, [server.hostport])
    get(session, server.url("/echo"))
    assert "authorization" not in server.requests[0]["headers"]


def test_a_tool_may_not_set_a_secrets_header(harness, server):
    broker = harness.broker([server.hostport],
                            secrets=secret_for(server.hostport, header="X-Api-Key"))
    session = harness.session(broker, [server.hostport])
    for name in ("x-api-key", "X-API-KEY", "X_Api_Key"):
        with pytest.raises(CapabilityViolation) as info:
            get(session, server.url("/echo"), headers={name: "guess"})
        assert info.value.details["code"] == "http.host_header"
    assert server.requests == []


@pytest.mark.parametrize(("environ", "what"), [
    ({}, "unset"), ({"DEMO_TOKEN": ""}, "unset"), ({"DEMO_TOKEN": "q7x2k"}, "characters long"),
    ({"DEMO_TOKEN": "good-token\r\nX-Injected: 1"}, "characters a header value may not"),
    ({"DEMO_TOKEN": "tøken-non-ascii"}, "characters a header value may not"),
])
def test_a_missing_or_unusable_secret_is_an_ordinary_failure(harness, server, environ, what):
    broker = harness.broker([server.hostport], secrets=secret_for(server.hostport),
                            environ=environ)
    session = harness.session(broker, [server.hostport], secrets=["DEMO_TOKEN"])
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/echo"))
    assert info.value.kind == "secret"
    assert what in info.value.message and "DEMO_TOKEN" in info.value.message
    for value in environ.values():
        if value:
            assert value not in info.value.message
    assert server.requests == []


def test_secrets_go_in_clear_text_only_to_allowed_private_addresses(harness, server):
    broker = harness.broker([server.hostport], secrets=secret_for(server.hostport))
    session = harness.session(broker, [server.hostport], secrets=["DEMO_TOKEN"])
    assert session._private_hop(("127.0.0.1",)) is True
    assert session._private_hop(("93.184.215.14",)) is False
    assert session._private_hop(("127.0.0.1", "93.184.215.14")) is False


def test_a_rotated_secret_is_redacted_too(harness, server):
    environ = {"DEMO_TOKEN": TOKEN}
    broker = harness.broker([server.hostport], secrets=secret_for(server.hostport),
                            environ=environ)
    session = harness.session(broker, [server.hostport], secrets=["DEMO_TOKEN"])
    environ["DEMO_TOKEN"] = "rotated-value-0987654321"
    answer = get(session, server.url("/echo-secret"))
    assert "rotated-value-0987654321" not in json.dumps(answer)
    assert TOKEN not in session.redact(TOKEN)


def test_redaction_forms():
    redact = Redactor([("T", "s3cr3t+/value=", "Bearer s3cr3t+/value=")])
    for form in forms("s3cr3t+/value="):
        assert "s3cr3t" not in redact(f"<{form}>") or form == ""
        assert redact(f"<{form}>").startswith("<[redacted:T]")
    blob = base64.b64encode(b"ab:s3cr3t+/value=:cd").decode()
    assert "[redacted:T]" in redact(blob)
    assert redact("nothing here") == "nothing here"
    assert Redactor()("x") == "x" and not Redactor()


SLASHED = "aB3/xY+z9Q==&<'\" k"  # a base64-like value with every character an escape touches


@pytest.mark.parametrize("echo", [
    urllib.parse.quote(SLASHED),                  # Python's default: '/' kept, the rest escaped
    urllib.parse.quote(SLASHED, safe="+="),       # a URL builder keeping some reserved
    re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(),
           urllib.parse.quote("Bearer " + SLASHED)),  # lower-case hex
    json.dumps(SLASHED).replace("/", "\\/"),      # PHP's json_encode escapes '/'
    json.dumps(SLASHED).replace("+", "\\u002B"),  # \u escapes, either case
    "".join(f"&#{ord(c)};" if c in "/+=" else c for c in SLASHED),  # HTML numeric
    SLASHED.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    .replace("'", "&#x27;"),                      # HTML-escaped, as an error page quotes it
])
def test_an_echo_in_a_mix_of_escapes_is_redacted(echo: str) -> None:
    redact = Redactor([("T", SLASHED, "Bearer " + SLASHED)])
    out = redact(f"token was <<{echo}>> here")
    assert "[redacted:T]" in out, echo
    assert "xY" not in out and "z9Q" not in out, out
    assert out.startswith("token was <<") and out.endswith(">> here")


def test_escapes_do_not_match_another_value() -> None:
    redact = Redactor([("T", "aBcDeFgH12", "Bearer aBcDeFgH12")])
    assert redact("aBcDeFgH1 abcdefgh13 ABCDEFGH1x") == "aBcDeFgH1 abcdefgh13 ABCDEFGH1x"
    assert redact("%61BcDeFgH12") == "[redacted:T]"


CASED = "Tk-9aBcDeFgH/+xY"


@pytest.mark.parametrize("echo", [
    CASED.lower(), CASED.upper(), CASED.swapcase(), CASED.casefold(),
    "BEARER " + CASED.upper(),                               # a header value, upper-cased
    urllib.parse.quote(CASED.upper(), safe=""),               # case-folded, then escaped
    urllib.parse.quote(CASED, safe="").lower(),               # escaped, then case-folded
    json.dumps(CASED.lower())[1:-1],
    CASED.encode().hex().upper(),
    base64.b64encode(CASED.upper().encode()).decode(),        # case-folded, then base64
    base64.b64encode(("Bearer " + CASED).lower().encode()).decode(),
    base64.b64encode(CASED.encode()).decode().lower(),        # base64, then case-folded
])
def test_a_case_folded_echo_is_redacted(echo: str) -> None:
    redact = Redactor([("T", CASED, "Bearer " + CASED)])
    out = redact(f"echo <<{echo}>> end")
    assert "[redacted:T]" in out, (echo, out)
    assert out.startswith("echo <<") and out.endswith(">> end"), out
    assert "9abcdefgh" not in out.lower() and b"9ABCDEFGH".hex() not in out.upper()


def test_a_case_folded_echo_from_a_server_is_redacted(harness, server):
    broker = harness.broker([server.hostport], secrets=secret_for(server.hostport))
    session = harness.session(broker, [server.hostport], secrets=["DEMO_TOKEN"])
    answer = get(session, server.url("/echo-secret?fold=upper"))
    assert TOKEN.upper() not in json.dumps(answer)
    assert answer["headers"]["x-echo"] == "[redacted:DEMO_TOKEN]"
    assert "token=[redacted:DEMO_TOKEN]" in answer["text"]
    assert leaks(harness.events) == []


def _pieces(text: str) -> str:
    return text.split("auth=", 1)[-1]


@pytest.mark.parametrize("headers", [
    {"Range": "bytes=12-14"}, {"range": "bytes=0-2"}, {"RANGE": "bytes=5-7"},
    {"Range": "bytes=12-14", "If-Range": "whatever"}, {"If_Range": "x", "Range": "bytes=1-3"},
], ids=",".join)
def test_a_hop_that_carries_a_secret_takes_no_range(harness, server, headers):
    """A tool asks an echoing host for a few bytes of its echo at a time, too few to redact:
    the hop that carries the secret never sends the tool's Range or If-Range, so the echo
    comes back whole, and redacted."""
    broker = harness.broker([server.hostport], secrets=secret_for(server.hostport))
    session = harness.session(broker, [server.hostport], secrets=["DEMO_TOKEN"])
    answer = get(session, server.url("/echo-range"), headers=headers)
    sent = server.requests[-1]["headers"]
    assert "range" not in sent and "if-range" not in sent and "if_range" not in sent
    assert sent["authorization"] == f"Bearer {TOKEN}"
    assert answer["status"] == 200 and _pieces(answer["text"]) == "[redacted:DEMO_TOKEN]"


def test_a_hop_without_a_secret_keeps_the_tools_range(harness, server, other_server):
    broker = harness.broker([server.hostport, other_server.hostport],
                            secrets=secret_for(server.hostport),
                            private=["127.0.0.0/8"])
    session = harness.session(broker, [server.hostport, other_server.hostport],
                              secrets=["DEMO_TOKEN"])
    answer = get(session, other_server.url("/echo-range"), headers={"Range": "bytes=0-3"})
    assert other_server.requests[-1]["headers"]["range"] == "bytes=0-3"
    assert "authorization" not in other_server.requests[-1]["headers"]
    assert (answer["status"], answer["text"]) == (206, "auth")
    # A redirect onto the secret's host: the first hop keeps Range, the second drops it.
    get(session, other_server.url(f"/redirect?to={server.url('/echo-range')}"),
        headers={"Range": "bytes=0-3"})
    assert other_server.requests[-1]["headers"]["range"] == "bytes=0-3"
    assert "range" not in server.requests[-1]["headers"]
    assert server.requests[-1]["headers"]["authorization"] == f"Bearer {TOKEN}"
