from __future__ import annotations

from pathlib import Path

from dyntools.gate import check_source
from dyntools.gate.findings import Finding
from dyntools.gate.policy import Policy, default_allowlist_path, load_policy
from dyntools.generators import ToolSpec
from dyntools.generators.prompt import (
    EXAMPLE_TOOL,
    PLAIN_EXAMPLE_TOOL,
    build_prompt,
    system_text,
)

SPEC = ToolSpec(
    "slugify_text",
    "Turns a title into a URL slug.",
    params={"type": "object", "properties": {"text": {"type": "string"}}},
    examples=({"params": {"text": "A B"}, "result": {"slug": "a-b"}},),
)


def modified_policy(tmp_path: Path, edit) -> Policy:
    text = default_allowlist_path().read_text(encoding="utf-8")
    path = tmp_path / "allowlist.toml"
    path.write_text(edit(text), encoding="utf-8")
    return load_policy(path)


def test_system_prompt_lists_every_allowed_module_member_and_builtin(policy) -> None:
    system = system_text(policy)
    for name, module in policy.modules.items():
        if name == "host":  # described in its own section, with what can be granted
            continue
        line = next(line for line in system.splitlines() if line.startswith(f"- {name}: "))
        for member in module.members:
            assert member in line.split(": ", 1)[1].split(", ")
    for builtin in policy.builtins:
        assert builtin in system
    for denied in policy.denied_builtins:
        assert f"- {denied}(): " in system
    assert f"At most {policy.limits.max_bytes} bytes" in system


def test_prompt_changes_when_the_allowlist_changes(tmp_path, policy) -> None:
    assert "floor" in policy.modules["math"].members

    def edit(text: str) -> str:
        assert text.count('"floor", ') == 1
        text = text.replace('"floor", ', "")
        return text + '\n[modules.probe_module]\nmembers = ["alpha", "beta"]\n'

    changed = modified_policy(tmp_path, edit)
    before, after = build_prompt(SPEC, policy), build_prompt(SPEC, changed)
    assert before.sha256 != after.sha256
    assert "- probe_module: alpha, beta" in after.system
    assert "probe_module" not in before.system
    math_line = next(line for line in after.system.splitlines() if line.startswith("- math: "))
    assert "floor" not in math_line


def test_example_never_shows_an_import_the_policy_refuses(tmp_path, policy) -> None:
    assert EXAMPLE_TOOL in system_text(policy)
    changed = modified_policy(
        tmp_path, lambda t: t.replace("[modules.unicodedata]", "[modules.unicodedata_off]")
    )
    system = system_text(changed)
    assert EXAMPLE_TOOL not in system and PLAIN_EXAMPLE_TOOL in system


def test_both_examples_pass_the_gate(policy) -> None:
    assert check_source(EXAMPLE_TOOL, policy).accepted
    assert check_source(PLAIN_EXAMPLE_TOOL, policy).accepted


def test_task_names_the_tool_schema_and_examples(policy) -> None:
    prompt = build_prompt(SPEC, policy)
    [task] = prompt.messages
    assert task.role == "user"
    assert 'NAME must be "slugify_text"' in task.text
    assert '"required"' not in task.text and '"properties"' in task.text
    assert '"slug": "a-b"' in task.text
    assert "```python" in task.text


def test_feedback_continues_the_conversation(policy) -> None:
    findings = [Finding(2, 1, "DT201", "module 'os' is not on the allow-list")]
    prompt = build_prompt(SPEC.with_feedback("import os\n", findings), policy)
    assert [m.role for m in prompt.messages] == ["user", "assistant", "user"]
    assert "import os" in prompt.messages[1].text
    assert "2:1: DT201 module 'os' is not on the allow-list" in prompt.messages[2].text
    assert prompt.sha256 != build_prompt(SPEC, policy).sha256


def test_chat_shape_puts_the_system_prompt_first(policy) -> None:
    chat = build_prompt(SPEC, policy).as_chat()
    assert chat[0]["role"] == "system" and chat[1]["role"] == "user"


def test_prompt_is_deterministic(policy) -> None:
    assert build_prompt(SPEC, policy) == build_prompt(SPEC, policy)


def test_without_a_capability_policy_the_prompt_offers_no_host(policy) -> None:
    system = system_text(policy)
    assert "Nothing can be granted here: the tool may not import `host`" in system
    assert "host.http_get" not in system
    assert not any(line.startswith("- host: ") for line in system.splitlines())


def test_the_prompt_offers_exactly_what_the_capability_policy_can_grant(policy) -> None:
    from dyntools.capabilities import policy_from_mapping

    granted = policy_from_mapping({
        "http": {"allow": ["api.github.com", "*.wikipedia.org"]},
        "secrets": {"GH_TOKEN": {"env": "SOME_ENV_NAME", "hosts": ["api.github.com"]}},
        "tools": {"allow": ["slugify_text"]},
    })
    system = system_text(policy, granted)
    assert "host.http_get(url" in system and "host.call_tool(name, params)" in system
    assert "- http hosts: api.github.com, *.wikipedia.org" in system
    assert "declare the exact host" in system  # a wildcard is the operator's, never the tool's
    assert "- secrets: GH_TOKEN (sent to api.github.com)" in system
    assert "SOME_ENV_NAME" not in system  # where a secret lives is the host's business
    assert "- tools: slugify_text" in system
    assert '"http": [{"request":' in system  # recorded exchanges are explained
    assert "Nothing can be granted" not in system
    nothing = policy_from_mapping({"http": {"allow": []}})
    assert "Nothing can be granted here" in system_text(policy, nothing)
