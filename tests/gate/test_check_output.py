"""`dyntools check`'s output over many files (dyntools/cli/check_cmd.py renders each report as
it is made): the same documents `render_text`, `to_json` and `to_sarif` make from all the
reports at once, and memory that does not grow with the number of files checked."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from dyntools import __version__
from dyntools.base.terminal import terminal_safe
from dyntools.cli.check_cmd import EXIT_ACCEPTED, EXIT_REJECTED, CheckArguments, check_files
from dyntools.gate import check_file, check_source
from dyntools.gate.findings import render_text, to_json, to_sarif

REPO = Path(__file__).resolve().parents[2]
GOOD = (REPO / "dyntools" / "generators" / "templates" / "slugify_text.py").read_text("utf-8")
# A finding after a non-BMP character: its SARIF column needs the refused file's line.
EVIL = GOOD.replace("    return {", "    x = '\U0001f600'; eval(params['text'])\n    return {")


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    names = []
    for index, source in enumerate([GOOD, EVIL, GOOD, EVIL.replace("eval", "exec")]):
        path = tmp_path / f"tool_{index}.py"
        path.write_text(source, "utf-8")
        names.append(str(path))
    return names


def whole(files: list[str], output: str) -> str:
    reports = [check_file(name) for name in files]
    if output == "json":
        return json.dumps(to_json(reports), indent=2)
    if output == "sarif":
        return json.dumps(to_sarif(reports, __version__), indent=2)
    return "\n".join(f"{terminal_safe(r.path)}: accepted" if r.accepted else render_text(r)
                     for r in reports)


@pytest.mark.parametrize("output", ["text", "json", "sarif"])
def test_the_output_is_what_all_the_reports_make_at_once(files: list[str], output: str) -> None:
    text, code = check_files(CheckArguments(tuple(files), output, None))
    assert code == EXIT_REJECTED
    assert text == whole(files, output)


@pytest.mark.parametrize("output", ["text", "json", "sarif"])
def test_only_accepted_files_exit_zero(files: list[str], output: str) -> None:
    good = [files[0], files[2]]
    text, code = check_files(CheckArguments(tuple(good), output, None))
    assert code == EXIT_ACCEPTED
    assert text == whole(good, output)


@pytest.mark.parametrize("output", ["text", "json", "sarif"])
def test_memory_does_not_grow_with_the_files_checked(tmp_path: Path, output: str) -> None:
    # ~40 KB of source each: 120 reports kept whole would hold their ~5 MB of lines.
    big = GOOD + "".join(f"# {'comment text ' * 4}{i}\n" for i in range(600))
    path = tmp_path / "big.py"
    path.write_text(big, "utf-8")
    check_files(CheckArguments((str(path),), output, None))  # caches, the engine

    def peak(count: int) -> int:
        tracemalloc.start()
        try:
            _, code = check_files(CheckArguments((str(path),) * count, output, None))
            assert code == EXIT_ACCEPTED
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    one, many = peak(1), peak(120)
    assert many - one < 120 * len(big) // 4, (one, many)


def test_the_collector_runs_rarely_while_checking_and_as_before_after(
        files: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    import click

    from dyntools.cli import check_cmd

    seen: list[tuple[int, ...]] = []
    real = check_source

    def watched(*args: object, **kwargs: object) -> object:
        seen.append(gc.get_threshold())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(check_cmd, "check_source", watched)
    original = gc.get_threshold()
    before = (701, 11, 12)  # not what an earlier check could have left
    gc.set_threshold(*before)
    try:
        check_files(CheckArguments(tuple(files), "text", None))
        assert seen == [check_cmd.CHECK_GC_THRESHOLD] * len(files)
        assert gc.get_threshold() == before
        with pytest.raises(click.UsageError):  # a missing file, after two checked
            check_files(CheckArguments((files[0], files[1], str(tmp_path / "gone.py")),
                                       "text", None))
        assert gc.get_threshold() == before
    finally:
        gc.set_threshold(*original)
