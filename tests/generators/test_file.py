from __future__ import annotations

import io

import pytest

from dyntools.errors import GateRejected, GenerationError
from dyntools.gate import check_source
from dyntools.generators import FileGenerator, ToolSpec, generate_gated
from dyntools.generators.offline import template_source

SPEC = ToolSpec("word_count")
GOOD = template_source("word_count")


def test_reads_a_file_verbatim(tmp_path) -> None:
    path = tmp_path / "tool.py"
    path.write_text(GOOD, encoding="utf-8")
    generated = FileGenerator(path).generate(SPEC)
    assert generated.source == GOOD
    assert (generated.generator, generated.model, generated.prompt_sha256) == ("file", None, None)


def test_reads_stdin() -> None:
    generated = FileGenerator("-", stdin=io.BytesIO(GOOD.encode())).generate(SPEC)
    assert generated.source == GOOD


@pytest.mark.parametrize(
    ("content", "words"),
    [(None, "cannot read"), (b"\xff\xfe", "not valid UTF-8"), (b"  \n", "empty")],
)
def test_unreadable_input_is_a_generation_error(tmp_path, content, words) -> None:
    path = tmp_path / "tool.py"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(GenerationError) as caught:
        FileGenerator(path).generate(SPEC)
    assert words in caught.value.message
    assert caught.value.station == "generate"


def test_a_rejected_file_is_not_retried(tmp_path, policy) -> None:
    path = tmp_path / "tool.py"
    path.write_text(GOOD + "\nimport os\n", encoding="utf-8")
    calls = []

    def gate(source):
        calls.append(source)
        return check_source(source, policy)

    with pytest.raises(GateRejected) as caught:
        generate_gated(FileGenerator(path), SPEC, gate, max_attempts=3)
    assert len(calls) == 1
    assert caught.value.details["attempts"] == 1
