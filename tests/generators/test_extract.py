from __future__ import annotations

import pytest

from dyntools.errors import GenerationNoCode
from dyntools.generators.extract import extract_code

MODULE = 'NAME = "t"\n\ndef run(params):\n    return {}\n'


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a python fence with prose around it
        (f"Sure!\n\n```python\n{MODULE}```\n\nDone.", MODULE),
        # tag variants and tildes
        (f"```py\n{MODULE}```", MODULE),
        (f"```Python3\n{MODULE}```", MODULE),
        (f"~~~python\n{MODULE}~~~\n", MODULE),
        # the largest python block wins over a small usage snippet
        (f"```python\nrun({{}})\n```\n\n```python\n{MODULE}```", MODULE),
        # python blocks win over untagged ones, untagged over other tags
        (f"```\nx = 1\ny = 2\nz = 3\nw = 4\n```\n```python\n{MODULE}```", MODULE),
        (f'```json\n{{"a": 1}}\n```\n```\n{MODULE}```', MODULE),
        # a block tagged as something else that still defines run
        (f"```text\n{MODULE}```", MODULE),
        # a four-backtick fence holding a triple-backtick string
        (f'````python\nDOC = """```"""\n{MODULE}````', 'DOC = """```"""\n' + MODULE),
        # an unclosed fence (a truncated answer) runs to the end
        (f"```python\n{MODULE}", MODULE),
        # a bare module
        (MODULE, MODULE),
        # surrounding blank lines are trimmed, one final newline kept
        (f"```python\n\n\n{MODULE}\n\n```", MODULE),
    ],
)
def test_extracts(answer: str, expected: str) -> None:
    assert extract_code(answer) == expected


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "I cannot write that tool without more detail.",
        '```json\n{"params": {}}\n```',
        "```python\n\n```",
        "Use `def run(params)` to start.",  # inline code, not a module
    ],
)
def test_no_code(answer: str) -> None:
    with pytest.raises(GenerationNoCode) as caught:
        extract_code(answer)
    assert caught.value.reason == "no_code"
    assert caught.value.station == "generate"
