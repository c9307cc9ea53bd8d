"""The operator's policy file: what it grants, and a readable error for every bad input."""

from __future__ import annotations

import pickle

import pytest

from dyntools.capabilities import (
    CAPABILITIES_ENV,
    EMPTY_POLICY,
    CapabilityPolicy,
    load_capability_policy,
    policy_from_mapping,
    resolve_capability_policy,
)
from dyntools.errors import CapabilityPolicyError, PolicyLoadError
from dyntools.gate.capabilities import HostRule, parse_capabilities

GOOD = """
# the operator's capability policy
[http]
allow = ["api.github.com", "*.wikipedia.org", "127.0.0.1:8765", "api.example.com"]
allow_private = ["127.0.0.1/32", "fd12::/64"]
max_response_bytes = 1048576
timeout_s = 10
max_requests_per_call = 16

[secrets.DEMO_TOKEN]
env = "DEMO_TOKEN"
hosts = ["api.example.com"]
header = "Authorization"
template = "Bearer {}"

[tools]
allow = ["slugify_text"]
"""


def write(tmp_path, text: str | bytes):
    path = tmp_path / "caps.toml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def test_a_good_file_loads_into_data(tmp_path):
    policy = load_capability_policy(write(tmp_path, GOOD))
    assert policy.http_allow[1] == HostRule("wikipedia.org", None, True)
    assert policy.http_allow[2] == HostRule("127.0.0.1", 8765)
    assert [str(net) for net in policy.allow_private] == ["127.0.0.1/32", "fd12::/64"]
    assert (policy.max_response_bytes, policy.timeout_s, policy.max_requests_per_call) == \
        (1048576, 10.0, 16)
    secret = policy.secrets["DEMO_TOKEN"]
    assert (secret.env, secret.header, secret.template) == ("DEMO_TOKEN", "Authorization",
                                                            "Bearer {}")
    assert policy.tools_allow == ("slugify_text",)
    assert policy.source == str(tmp_path / "caps.toml")
    assert len(policy.digest) == 64 and policy.configured


def test_defaults_and_an_empty_file(tmp_path):
    policy = load_capability_policy(write(tmp_path, ""))
    assert policy.configured and policy.http_allow == () and policy.secrets == {}
    assert (policy.max_response_bytes, policy.timeout_s, policy.max_requests_per_call) == \
        (1024 * 1024, 10.0, 16)


def test_the_digest_ignores_comments_and_layout_but_not_content(tmp_path):
    first = load_capability_policy(write(tmp_path, GOOD)).digest
    second = load_capability_policy(write(tmp_path, "# x\n" + GOOD.replace(" = ", "="))).digest
    third = load_capability_policy(write(tmp_path, GOOD.replace("timeout_s = 10",
                                                                "timeout_s = 11"))).digest
    assert first == second != third


def test_a_policy_pickles_and_compares_equal(tmp_path):
    policy = load_capability_policy(write(tmp_path, GOOD))
    assert pickle.loads(pickle.dumps(policy)) == policy


def test_a_secret_rule_never_shows_a_value(tmp_path, monkeypatch):
    monkeypatch.setenv("DEMO_TOKEN", "the-actual-value-123")
    policy = load_capability_policy(write(tmp_path, GOOD))
    assert "the-actual-value-123" not in repr(policy) + repr(policy.describe())


def test_resolve_order(tmp_path):
    path = write(tmp_path, GOOD)
    other = tmp_path / "other.toml"
    other.write_text("[tools]\nallow = ['x']\n")
    assert resolve_capability_policy(None, environ={}) is EMPTY_POLICY
    assert resolve_capability_policy(None, environ={CAPABILITIES_ENV: ""}) is EMPTY_POLICY
    assert resolve_capability_policy(None, {CAPABILITIES_ENV: str(other)}).tools_allow == ("x",)
    chosen = resolve_capability_policy(str(path), {CAPABILITIES_ENV: str(other)})
    assert chosen.tools_allow == ("slugify_text",)
    assert CapabilityPolicy.EMPTY is EMPTY_POLICY and not EMPTY_POLICY.configured


# ------------------------------------------------------------------------ bad inputs

BAD = [
    # (TOML text, the key the message names, a phrase of what is wrong)
    ("[htp]\nallow = []", "htp", "unknown key"),
    ("[http]\nalow = []", "http.alow", "unknown key"),
    ("[http]\nallow = []\n[secrets.T]\nenv='T'\nhosts=[]\nheadr='X'", "secrets.T.headr",
     "unknown key"),
    ("[tools]\nallowed = []", "tools.allowed", "unknown key"),
    ("http = 1", "http", "must be a table"),
    ("[http]\nallow = 'api.github.com'", "http.allow", "must be a list"),
    ("[http]\nallow = [1]", "http.allow[0]", "must be a string"),
    ("[http]\nallow = ['API.github.com']", "http.allow[0]", "lowercase"),
    ("[http]\nallow = ['https://api.github.com']", "http.allow[0]", "scheme"),
    ("[http]\nallow = ['api.github.com/x']", "http.allow[0]", "path"),
    ("[http]\nallow = ['user@api.github.com']", "http.allow[0]", "userinfo"),
    ("[http]\nallow = ['*']", "http.allow[0]", "'*'"),
    ("[http]\nallow = ['a.*.com']", "http.allow[0]", "'*'"),
    ("[http]\nallow = ['127.1']", "http.allow[0]", "dotted-quad"),
    ("[http]\nallow = ['2130706433']", "http.allow[0]", "dotted-quad"),
    ("[http]\nallow = ['a.com:0']", "http.allow[0]", "port"),
    ("[http]\nallow = ['a.com:70000']", "http.allow[0]", "port"),
    ("[http]\nallow = ['::1']", "http.allow[0]", "brackets"),
    ("[http]\nallow = ['a.com', 'a.com']", "http.allow[1]", "twice"),
    ("[http]\nallow_private = ['127.0.0.1']", "http.allow_private[0]", "not a CIDR"),
    ("[http]\nallow_private = ['10.0.0.1/8']", "http.allow_private[0]", "host bits"),
    ("[http]\nallow_private = ['10.0.0.0/33']", "http.allow_private[0]", "not a CIDR"),
    ("[http]\nallow_private = ['banana/8']", "http.allow_private[0]", "not a CIDR"),
    ("[http]\nallow_private = ['0.0.0.0/0']", "http.allow_private[0]", "every address"),
    ("[http]\nallow_private = ['::/0']", "http.allow_private[0]", "every address"),
    ("[http]\nmax_response_bytes = 0", "http.max_response_bytes", "from 1 to"),
    ("[http]\nmax_response_bytes = 1e6", "http.max_response_bytes", "integer"),
    ("[http]\nmax_response_bytes = 100000000000", "http.max_response_bytes", "from 1 to"),
    ("[http]\ntimeout_s = 0", "http.timeout_s", "more than 0"),
    ("[http]\ntimeout_s = -1", "http.timeout_s", "more than 0"),
    ("[http]\ntimeout_s = 1000", "http.timeout_s", "at most"),
    ("[http]\ntimeout_s = nan", "http.timeout_s", "more than 0"),
    ("[http]\ntimeout_s = inf", "http.timeout_s", "at most"),
    ("[http]\ntimeout_s = '10'", "http.timeout_s", "number"),
    ("[http]\ntimeout_s = true", "http.timeout_s", "number"),
    ("[http]\nmax_requests_per_call = 0", "http.max_requests_per_call", "from 1 to"),
    ("[http]\nmax_requests_per_call = 1000", "http.max_requests_per_call", "from 1 to"),
    ("secrets = 3", "secrets", "must be a table"),
    ("[secrets]\nT = 'x'", "secrets.T", "must be a table"),
    ("[secrets.lower]\nenv='X'\nhosts=[]", "secrets.lower", "UPPER_SNAKE"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nhosts=['a.com']", "secrets.T.env", "required"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'", "secrets.T.hosts", "required"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=[]", "secrets.T.hosts",
     "at least one"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='BAD-NAME'\nhosts=['a.com']",
     "secrets.T.env", "environment variable"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv=5\nhosts=['a.com']", "secrets.T.env",
     "environment variable"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['b.com']", "secrets.T.hosts[0]",
     "not in http.allow"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['a.com:8443']",
     "secrets.T.hosts[0]", "not in http.allow"),
    ("[http]\nallow=['*.a.com']\n[secrets.T]\nenv='T'\nhosts=['*.a.com']",
     "secrets.T.hosts[0]", "wildcard"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['a.com']\nheader='Bad Header'",
     "secrets.T.header", "token"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['a.com']\nheader=\"X\\r\\nY\"",
     "secrets.T.header", "token"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['a.com']\nheader='Host'",
     "secrets.T.header", "set by the host"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['a.com']\ntemplate='Bearer'",
     "secrets.T.template", "exactly one"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['a.com']\ntemplate='{}{}'",
     "secrets.T.template", "exactly one"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['a.com']\ntemplate='{0}'",
     "secrets.T.template", "exactly one"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['a.com']\ntemplate='{} }'",
     "secrets.T.template", "no other braces"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['a.com']\n"
     "template=\"Bearer {}\\r\\nX: y\"", "secrets.T.template", "printable ASCII"),
    ("[http]\nallow=['a.com']\n[secrets.T]\nenv='T'\nhosts=['a.com']\ntemplate=1",
     "secrets.T.template", "must be a string"),
    ("[http]\nallow=['a.com']\n[secrets.A]\nenv='A'\nhosts=['a.com']\n"
     "[secrets.B]\nenv='B'\nhosts=['a.com']", "secrets.B.header", "both sent"),
    ("[tools]\nallow = ['Bad-Name']", "tools.allow[0]", "snake"),
    ("[tools]\nallow = ['x', 'x']", "tools.allow[1]", "twice"),
    ("[tools]\nallow = 'x'", "tools.allow", "must be a list"),
]


@pytest.mark.parametrize(("text", "key", "phrase"), BAD)
def test_every_bad_input_names_the_file_the_key_and_the_problem(tmp_path, text, key, phrase):
    path = write(tmp_path, text)
    with pytest.raises(CapabilityPolicyError) as info:
        load_capability_policy(path)
    message = info.value.message
    assert message.startswith(f"{path}: {key}: "), message
    assert phrase.lower() in message.lower(), message
    assert info.value.details["key"] == key
    assert info.value.reason == "capability_policy"
    assert isinstance(info.value, PolicyLoadError)
    assert "Traceback" not in message and "\n" not in message


@pytest.mark.parametrize(("content", "phrase"), [
    (b"[http\nallow = []", "not valid TOML"),
    (b"allow = [", "not valid TOML"),
    (b"\xff\xfe[http]", "not UTF-8"),
    (b"# " + b"x" * 70_000, "larger than"),
])
def test_files_that_are_not_a_policy(tmp_path, content, phrase):
    path = write(tmp_path, content)
    with pytest.raises(CapabilityPolicyError) as info:
        load_capability_policy(path)
    assert info.value.message.startswith(f"{path}: ") and phrase in info.value.message


def test_an_unreadable_path(tmp_path):
    for path in (tmp_path / "missing.toml", tmp_path):
        with pytest.raises(CapabilityPolicyError) as info:
            load_capability_policy(path)
        assert info.value.message.startswith(f"{path}: cannot read")


def test_the_environment_variable_naming_a_bad_file_fails_loudly(tmp_path):
    with pytest.raises(CapabilityPolicyError):
        resolve_capability_policy(None, {CAPABILITIES_ENV: str(tmp_path / "nope.toml")})


def test_policy_from_mapping_refuses_a_non_mapping():
    with pytest.raises(CapabilityPolicyError):
        policy_from_mapping(["not", "a", "table"])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- grants

def test_grants_say_per_entry_why(tmp_path):
    policy = load_capability_policy(write(tmp_path, GOOD))
    caps = parse_capabilities({
        "http": ["api.github.com", "en.wikipedia.org", "wikipedia.org", "127.0.0.1:8765",
                 "127.0.0.2:9999", "10.0.0.5", "api.github.com:8443", "api.github.com:443",
                 "evil.test"],
        "secrets": ["DEMO_TOKEN", "OTHER"], "tools": ["slugify_text", "rm_rf"]})
    grants = policy.grants(caps)
    table = {(g.kind, g.entry): (g.granted, g.reason) for g in grants}
    assert table[("http", "api.github.com")][0] is True
    assert table[("http", "en.wikipedia.org")][0] is True
    assert table[("http", "wikipedia.org")] == (False, "not in the operator's http.allow")
    assert table[("http", "127.0.0.1:8765")][0] is True
    assert table[("http", "127.0.0.2:9999")][0] is False
    assert "loopback" in table[("http", "127.0.0.2:9999")][1]
    assert table[("http", "10.0.0.5")][0] is False and "RFC 1918" in \
        table[("http", "10.0.0.5")][1]
    assert table[("http", "api.github.com:8443")] == (
        False, "the operator's http.allow has this host only as api.github.com")
    assert table[("http", "api.github.com:443")][0] is True
    assert "https only" in table[("http", "api.github.com:443")][1]
    assert table[("http", "evil.test")][0] is False
    assert table[("secrets", "DEMO_TOKEN")][0] is True
    assert "never sent" in table[("secrets", "DEMO_TOKEN")][1]  # api.example.com undeclared
    assert table[("secrets", "OTHER")][0] is False
    assert table[("tools", "slugify_text")][0] is True
    assert table[("tools", "rm_rf")][0] is False
    assert not grants.all_granted and len(grants.refused) == 7
    assert grants.as_dict()["entries"][0] == {
        "kind": "http", "entry": "api.github.com", "granted": True,
        "reason": "allowed by http.allow 'api.github.com'"}


def test_nothing_is_granted_without_a_policy():
    grants = EMPTY_POLICY.grants(parse_capabilities({"http": ["a.com"], "secrets": ["T"],
                                                      "tools": ["x"]}))
    assert [g.granted for g in grants] == [False, False, False]
    assert all("no capability policy" in g.reason for g in grants)
    assert EMPTY_POLICY.grants(parse_capabilities({})).all_granted


def test_describe_shows_names_and_hosts_never_values_or_variables(tmp_path):
    policy = load_capability_policy(write(tmp_path, GOOD.replace('env = "DEMO_TOKEN"',
                                                                 'env = "HIDDEN_VAR"')))
    described = policy.describe()
    assert described["http"]["allow"] == ["api.github.com", "*.wikipedia.org",
                                          "127.0.0.1:8765", "api.example.com"]
    assert described["secrets"] == [{"name": "DEMO_TOKEN", "hosts": ["api.example.com"]}]
    assert described["tools"] == ["slugify_text"]
    assert described["http"]["max_requests_per_call"] == 16
    assert "HIDDEN_VAR" not in repr(described)
