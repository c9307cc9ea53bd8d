from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import structlog
from structlog.testing import capture_logs

from dyntools.errors import GateRejected, GenerationRefused, UsageError
from dyntools.gate import check_source
from dyntools.generators import (
    AnthropicGenerator,
    FileGenerator,
    GeneratedSource,
    Generator,
    OfflineGenerator,
    OpenAICompatGenerator,
    ToolSpec,
    generate_gated,
)
from dyntools.generators.loop import declared_name, require_name
from dyntools.generators.offline import template_source

GOOD = template_source("word_count")
BAD = "import os\n" + GOOD


@dataclass
class Scripted:
    """A generator that hands back scripted sources (or raises scripted errors)."""

    answers: list
    accepts_feedback: bool = True
    id: str = "scripted"
    model: str | None = "m-1"
    seen: list = field(default_factory=list)

    def generate(self, spec: ToolSpec) -> GeneratedSource:
        self.seen.append(spec)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return GeneratedSource(answer, self.id, self.model, prompt_sha256="0" * 64)


@pytest.fixture
def gate(policy):
    return lambda source: check_source(source, policy)


def test_every_generator_satisfies_the_protocol() -> None:
    for generator in (
        AnthropicGenerator(environ={}),
        OpenAICompatGenerator(environ={}),
        FileGenerator("-"),
        OfflineGenerator(),
        Scripted([]),
    ):
        assert isinstance(generator, Generator)


def test_accepted_first_time(gate) -> None:
    gated = generate_gated(Scripted([GOOD]), ToolSpec("word_count"), gate)
    assert gated.generated.attempts == 1 and gated.rejected == ()


def test_feedback_carries_the_rejected_source_and_findings(gate) -> None:
    generator = Scripted([BAD, GOOD])
    gated = generate_gated(generator, ToolSpec("word_count"), gate)
    assert gated.generated.attempts == 2
    first, second = generator.seen
    assert first.feedback is None
    assert second.feedback.source == BAD
    assert "DT201" in {f.code for f in second.feedback.findings}
    assert second.name == "word_count"


def test_attempts_are_bounded(gate) -> None:
    generator = Scripted([BAD] * 5)
    with pytest.raises(GateRejected) as caught:
        generate_gated(generator, ToolSpec("word_count"), gate, max_attempts=2)
    assert len(generator.seen) == 2
    assert caught.value.details["attempts"] == 2
    assert caught.value.report.sha256 == check_source(BAD).sha256


def test_generation_errors_propagate_unchanged(gate) -> None:
    refusal = GenerationRefused("no")
    with pytest.raises(GenerationRefused) as caught:
        generate_gated(Scripted([BAD, refusal]), ToolSpec("word_count"), gate)
    assert caught.value is refusal


def test_max_attempts_must_be_positive(gate) -> None:
    with pytest.raises(UsageError):
        generate_gated(Scripted([GOOD]), ToolSpec("word_count"), gate, max_attempts=0)


def test_a_file_for_another_tool_is_refused_with_dt504(gate) -> None:
    generator = Scripted([GOOD, GOOD.replace('"word_count"', '"count_words"')])
    with pytest.raises(GateRejected) as caught:
        generate_gated(generator, ToolSpec("count_words"), gate, max_attempts=1)
    [finding] = caught.value.report.findings
    assert finding.code == "DT504" and "count_words" in finding.message
    assert finding.line == GOOD.splitlines().index('NAME = "word_count"') + 1


def test_name_mismatch_is_fed_back(gate) -> None:
    renamed = GOOD.replace('"word_count"', '"count_words"')
    generator = Scripted([GOOD, renamed])
    gated = generate_gated(generator, ToolSpec("count_words"), gate)
    assert gated.generated.attempts == 2
    assert generator.seen[1].feedback.findings[0].code == "DT504"


def test_require_name_leaves_rejections_alone(policy) -> None:
    report = check_source(BAD, policy)
    assert require_name(report, BAD, "other") is report


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('NAME = "x"\n', ("x", 1, 1)),
        ('"""doc"""\nNAME = "y"\n', ("y", 2, 1)),
        ("NAME = 3\n", (None, 1, 1)),
        ("def (:\n", (None, 1, 1)),
        ("", (None, 1, 1)),
    ],
)
def test_declared_name(source, expected) -> None:
    assert declared_name(source) == expected


def test_each_attempt_is_logged(gate) -> None:
    # capture_logs swaps the processors but keeps the level filter an earlier default
    # configuration may have set (warning), so start from structlog's unfiltered defaults.
    structlog.reset_defaults()
    with capture_logs() as events:
        generate_gated(Scripted([BAD, GOOD]), ToolSpec("word_count"), gate)
    attempts = [e for e in events if e["event"] == "attempt"]
    assert [e["outcome"] for e in attempts] == ["rejected", "accepted"]
    assert "DT201" in attempts[0]["codes"]
    assert attempts[1]["tool"] == "word_count" and attempts[1]["generator"] == "scripted"
