"""An edited manifest is data from an attacker: parsing either succeeds or raises
ManifestError, and opening a registry never fails because of it."""

from __future__ import annotations

import contextlib
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dyntools.registry import Registry
from dyntools.registry.manifest import ManifestError, dump_manifest, parse_manifest

from .helpers import tool_source

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


def _valid(registry: Registry) -> dict:
    registry.add_version("echo_tool", tool_source(), {"generator": "test"})
    return json.loads((registry.root / "echo_tool" / "manifest.json").read_bytes())


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.lists(st.sampled_from(["versions", 0, "version", "sha256", "status", "reason",
                                      "current", "format", "name", "gate", "provenance",
                                      "history", "size", "created"]), min_size=1, max_size=3),
       value=JSON)
def test_mutated_manifest_parses_or_is_refused(registry: Registry, path, value) -> None:
    data = _valid(registry) if not registry.names() else json.loads(
        (registry.root / "echo_tool" / "manifest.json").read_bytes())
    target = data
    for key in path[:-1]:
        try:
            target = target[key]
        except (KeyError, IndexError, TypeError):
            return
    try:
        target[path[-1]] = value
    except (IndexError, TypeError):
        return
    raw = json.dumps(data).encode()
    try:
        manifest = parse_manifest(raw, "echo_tool")
    except ManifestError:
        return
    assert parse_manifest(dump_manifest(manifest), "echo_tool") == manifest


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200) | JSON.map(lambda v: json.dumps(v).encode()))
def test_arbitrary_bytes_never_crash_the_parser(data: bytes) -> None:
    with contextlib.suppress(ManifestError):
        parse_manifest(data, "echo_tool")


def test_open_survives_a_garbage_manifest(registry: Registry) -> None:
    _valid(registry)
    path = registry.root / "echo_tool" / "manifest.json"
    for garbage in (b"", b"\xff\xfe", b"[]", b'{"format": true, "name": "echo_tool"}', b"null"):
        path.write_bytes(garbage)
        reopened = Registry.open(registry.root, registry.policy)
        assert reopened.current("echo_tool") is None and reopened.tool("echo_tool").error
