"""CAPABILITIES' secrets and tools lists: each entry a well-formed name (secret names in
UPPER_SNAKE, tool names as the registry takes them), the first bad one refused at its
index, names checked before duplicates (gate/capabilities.py `_names`)."""

from __future__ import annotations

import pytest

from dyntools.gate.capabilities import DeclarationError, parse_capabilities

HTTP = {"http": ["api.example.com"]}


def test_well_formed_names_are_taken() -> None:
    caps = parse_capabilities({**HTTP, "secrets": ["API_TOKEN"], "tools": ["slugify_text"]})
    assert caps.secrets == ("API_TOKEN",)
    assert caps.tools == ("slugify_text",)


@pytest.mark.parametrize(("declared", "path"), [
    ({**HTTP, "secrets": ["API_TOKEN", "api-token"]}, ("secrets", 1)),
    ({**HTTP, "secrets": ["API_TOKEN", 7]}, ("secrets", 1)),
    ({"tools": ["slugify_text", "Not A Name"]}, ("tools", 1)),
    ({"tools": [None]}, ("tools", 0)),
    # a bad tool name is found before a duplicated secret
    ({**HTTP, "secrets": ["API_TOKEN", "API_TOKEN"], "tools": ["bad name"]}, ("tools", 0)),
])
def test_the_first_bad_name_is_refused_at_its_index(declared: dict[str, object],
                                                     path: tuple[str, int]) -> None:
    with pytest.raises(DeclarationError) as raised:
        parse_capabilities(declared)
    assert raised.value.path == path
