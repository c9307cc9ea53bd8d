"""Loading allowlist.toml: malformed files fail loudly, naming the key; the data comes out flat."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dyntools.gate.policy import (
    ALLOWLIST_ENV,
    PolicyError,
    default_allowlist_path,
    load_policy,
    parse_policy,
)

LIMITS = """\
[limits]
max_bytes = 1000
max_nodes = 500
max_depth = 20
"""

MINIMAL = (
    LIMITS
    + """\
[builtins]
allowed = ["len", "str"]
annotation_only = ["object"]
[builtins.denied]
eval = "eval executes a string"

[attributes.denied]
format = "format strings reach attributes"
[attributes.denied_prefixes]
f_ = "frame internals"

[denied_modules]
os = "os reaches the file system"

[denied_calls]
"os.system" = "shell execution"

[modules.re]
members = ["sub", "compile"]
submodules = ["enum"]
[modules.re.excluded]
template = "deprecated"

[modules.urllib.parse]
members = ["quote"]
[modules.urllib.parse.excluded]
splittype = "deprecated since 3.8"
"""
)


def parse(text: str, path: str = "test.toml") -> object:
    return parse_policy(text.encode("utf-8"), path)


def error_for(text: str) -> str:
    with pytest.raises(PolicyError) as caught:
        parse(text)
    return str(caught.value)


def test_a_minimal_policy_loads_every_section() -> None:
    policy = parse_policy(MINIMAL.encode(), "test.toml")
    assert (policy.limits.max_bytes, policy.limits.max_nodes, policy.limits.max_depth) == (
        1000,
        500,
        20,
    )
    assert policy.builtins == {"len", "str"}
    assert policy.annotation_names == {"object"}
    assert policy.denied_builtins["eval"] == "eval executes a string"
    assert policy.attribute_denial("format") == "format strings reach attributes"
    assert policy.attribute_denial("f_globals") == "frame internals"
    assert policy.attribute_denial("upper") is None
    assert policy.module_denial("os.path") == "os reaches the file system"
    assert policy.denied_calls["os.system"] == "shell execution"
    re_policy = policy.modules["re"]
    assert re_policy.members == {"sub", "compile"}
    assert re_policy.submodules == {"enum"}
    assert re_policy.reason_excluded("template") == "deprecated"
    assert re_policy.reason_excluded("sub") is None


def test_dotted_modules_are_flattened_to_their_dotted_name() -> None:
    policy = parse_policy(MINIMAL.encode(), "test.toml")
    assert set(policy.modules) == {"re", "urllib.parse"}
    parse_module = policy.module("urllib.parse")
    assert parse_module is not None
    assert parse_module.name == "urllib.parse"
    assert parse_module.members == {"quote"}
    assert parse_module.reason_excluded("splittype") == "deprecated since 3.8"
    assert policy.module("urllib") is None
    assert policy.is_package_prefix("urllib")
    assert not policy.is_package_prefix("urllib.parse")
    assert not policy.is_package_prefix("url")


def test_a_package_and_its_deeper_modules_are_both_kept() -> None:
    text = (
        LIMITS
        + """\
[modules.a]
members = ["top"]
[modules.a.b.c]
members = ["deep"]
[modules.a.b.c.excluded]
hidden = "deliberately refused"
"""
    )
    policy = parse_policy(text.encode(), "test.toml")
    assert set(policy.modules) == {"a", "a.b.c"}
    assert policy.modules["a"].members == {"top"}
    assert policy.modules["a.b.c"].members == {"deep"}
    assert policy.modules["a.b.c"].reason_excluded("hidden") == "deliberately refused"
    assert policy.is_package_prefix("a.b")


def test_policy_data_is_read_only() -> None:
    policy = parse_policy(MINIMAL.encode(), "test.toml")
    with pytest.raises(TypeError):
        policy.modules["os"] = policy.modules["re"]  # type: ignore[index]
    with pytest.raises(TypeError):
        policy.modules["re"].excluded["sub"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        policy.builtins.add("eval")  # type: ignore[attr-defined]


def test_malformed_toml_names_the_file() -> None:
    message = error_for(MINIMAL + "[modules.json\nmembers = [")
    assert "test.toml" in message


def test_bytes_that_are_not_utf8_are_refused() -> None:
    with pytest.raises(PolicyError, match=r"test\.toml"):
        parse_policy(b"[limits]\nmax_bytes = 1 # \xff\xfe\n", "test.toml")


@pytest.mark.parametrize("key", ["max_bytes", "max_nodes", "max_depth"])
def test_a_missing_limit_is_named(key: str) -> None:
    text = MINIMAL.replace(f"{key} = ", f"# {key} = ")
    assert f"limits.{key}" in error_for(text)


def test_a_missing_limits_table_is_named() -> None:
    text = MINIMAL.replace(LIMITS, "")
    assert "limits.max_bytes" in error_for(text)


@pytest.mark.parametrize(
    ("replacement", "key"),
    [
        ('max_bytes = "1000"', "limits.max_bytes"),
        ("max_bytes = 1000.5", "limits.max_bytes"),
        ("max_bytes = true", "limits.max_bytes"),
        ("max_bytes = 0", "limits.max_bytes"),
        ("max_bytes = -5", "limits.max_bytes"),
        ("max_bytes = [1000]", "limits.max_bytes"),
    ],
)
def test_a_limit_of_the_wrong_type_is_named(replacement: str, key: str) -> None:
    assert key in error_for(MINIMAL.replace("max_bytes = 1000", replacement))


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ('allowed = ["len", "str"]', 'allowed = "len"', "builtins.allowed"),
        ('allowed = ["len", "str"]', 'allowed = ["len", 3]', "builtins.allowed"),
        ('annotation_only = ["object"]', "annotation_only = true", "builtins.annotation_only"),
        ('eval = "eval executes a string"', "eval = 1", "builtins.denied"),
        ('format = "format strings reach attributes"', "format = []", "attributes.denied"),
        ('f_ = "frame internals"', "f_ = false", "attributes.denied_prefixes"),
        ('os = "os reaches the file system"', "os = 2", "denied_modules"),
        ('"os.system" = "shell execution"', '"os.system" = ["x"]', "denied_calls"),
        ('members = ["sub", "compile"]', 'members = "sub"', "modules.re.members"),
        ('members = ["sub", "compile"]', 'members = ["sub", 1]', "modules.re.members"),
        ('submodules = ["enum"]', 'submodules = "enum"', "modules.re.submodules"),
        ('template = "deprecated"', "template = 7", "modules.re.excluded"),
        ('members = ["quote"]', "members = {}", "modules.urllib.parse.members"),
    ],
)
def test_a_value_of_the_wrong_type_is_named(old: str, new: str, key: str) -> None:
    assert old in MINIMAL
    assert key in error_for(MINIMAL.replace(old, new, 1))


def test_a_module_that_is_not_a_table_is_named() -> None:
    assert "modules.json" in error_for(
        MINIMAL.replace("[modules.re]", "[modules]\njson = 1\n[modules.re]")
    )


def test_a_misspelt_key_inside_a_module_is_refused_not_ignored() -> None:
    text = MINIMAL.replace('submodules = ["enum"]', 'submodule = ["enum"]')
    assert "modules.re.submodule" in error_for(text)


def test_the_digest_is_the_sha256_of_the_file_bytes() -> None:
    data = MINIMAL.encode()
    assert parse_policy(data, "test.toml").digest == hashlib.sha256(data).hexdigest()


def test_the_digest_changes_when_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "allowlist.toml"
    path.write_text(MINIMAL, encoding="utf-8")
    before = load_policy(path)
    assert load_policy(path).digest == before.digest
    path.write_text(MINIMAL.replace('"sub", "compile"', '"sub", "compile", "escape"'), "utf-8")
    after = load_policy(path)
    assert after.digest != before.digest
    assert "escape" in after.modules["re"].members
    path.write_text(MINIMAL + "\n# a comment is a change a reviewer should see\n", "utf-8")
    assert load_policy(path).digest not in (before.digest, after.digest)


def test_an_unreadable_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(PolicyError, match=r"nope\.toml"):
        load_policy(missing)


def test_the_environment_variable_chooses_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "custom.toml"
    path.write_text(MINIMAL, encoding="utf-8")
    monkeypatch.setenv(ALLOWLIST_ENV, str(path))
    policy = load_policy()
    assert policy.path == str(path)
    assert set(policy.modules) == {"re", "urllib.parse"}


def test_the_shipped_allowlist_loads() -> None:
    policy = load_policy(Path(__file__).resolve().parents[2] / "allowlist.toml")
    assert policy.modules and policy.builtins and policy.limits.max_bytes > 0


# The parsed-tables cache (policy.py's `_read_parsed`/`_write_parsed`): same Policy, no
# tomllib on the second start, and nothing trusted that is not the tables of these bytes.

def _cache_on(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.setattr(sys, "pycache_prefix", str(folder))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def _shipped() -> bytes:
    return default_allowlist_path().read_bytes()


def test_a_cached_parse_gives_the_same_policy(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    from dyntools.gate import policy as module

    _cache_on(monkeypatch, tmp_path)
    first = parse_policy(_shipped(), "shipped")
    assert list(tmp_path.rglob("allowlist-*.json"))
    parsed_again = []
    monkeypatch.setattr(module, "_write_parsed", lambda *a: parsed_again.append(a))
    assert parse_policy(_shipped(), "shipped") == first
    assert parsed_again == []  # read from the cache, not parsed


@pytest.mark.parametrize("entry", [
    "not json", "[]", '{"version": 1, "digest": "0", "tables": {}}',
    '{"version": 2, "digest": "@", "tables": {}}', '{"version": 1, "digest": "@"}',
])
def test_a_cache_entry_that_is_not_these_bytes_tables_is_ignored(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, entry: str) -> None:
    from dyntools.gate import policy as module

    data = _shipped()
    expected = parse_policy(data, "shipped")
    _cache_on(monkeypatch, tmp_path)
    digest = module.sha256_hex(data)
    target = Path(module._parsed_cache_file(digest))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(entry.replace("@", digest))
    assert parse_policy(data, "shipped") == expected


def test_a_changed_file_is_parsed_again(monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    _cache_on(monkeypatch, tmp_path)
    parse_policy(_shipped(), "shipped")
    changed = _shipped().replace(b"max_bytes = ", b"max_bytes = 1", 1)
    assert parse_policy(changed, "changed").limits.max_bytes != parse_policy(
        _shipped(), "shipped").limits.max_bytes
    assert len(list(tmp_path.rglob("allowlist-*.json"))) == 2


def test_nothing_is_written_when_python_writes_no_bytecode(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    _cache_on(monkeypatch, tmp_path)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    parse_policy(_shipped(), "shipped")
    assert not list(tmp_path.rglob("*"))


def test_a_second_start_does_not_import_tomllib(tmp_path: Path) -> None:
    probe = ("import sys\nfrom dyntools.gate.policy import load_policy\nload_policy()\n"
             "print('tomllib' in sys.modules)")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "DYNTOOLS_ALLOWLIST")}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path)
    runs = [subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                           text=True, timeout=60, check=True).stdout.strip()
            for _ in range(2)]
    assert runs == ["True", "False"]


def test_type_checks_only_and_instance_attributes_are_read() -> None:
    text = MINIMAL.replace('members = ["sub", "compile"]\n', 'members = ["sub", "compile"]\n'
                           'type_checks_only = true\n').replace(
        'template = "deprecated"\n',
        'template = "deprecated"\n[modules.re.instance_attributes]\ncompile = ["get", "put"]\n')
    policy = parse_policy(text.encode(), "test.toml")
    assert policy.type_check_modules == {"re"}
    assert policy.modules["re"].instance_attributes == {"compile": {"get", "put"}}
    plain = parse_policy(MINIMAL.encode(), "test.toml")
    assert plain.type_check_modules == frozenset()
    assert dict(plain.modules["re"].instance_attributes) == {}


@pytest.mark.parametrize(("addition", "key"), [
    ('type_checks_only = "yes"\n', "modules.re.type_checks_only"),
    ('[modules.re.instance_attributes]\nnot_a_member = ["get"]\n',
     "modules.re.instance_attributes.not_a_member"),
    ('[modules.re.instance_attributes]\ncompile = ["_private"]\n',
     "modules.re.instance_attributes.compile"),
    ('[modules.re.instance_attributes]\ncompile = "get"\n',
     "modules.re.instance_attributes.compile"),
    ("instance_attributes = 1\n", "modules.re.instance_attributes"),
])
def test_a_malformed_narrowing_key_is_named(addition: str, key: str) -> None:
    text = MINIMAL.replace('members = ["sub", "compile"]\n',
                           'members = ["sub", "compile"]\n' + addition)
    assert key in error_for(text)
