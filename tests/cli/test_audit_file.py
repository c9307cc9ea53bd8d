"""The audit file is appended to only when it is a regular file reached without a symlink
(red team F7): a registry writer who made `<registry>/audit.log` a symlink to the operator's
shell start-up file had a line holding an attacker-chosen file name appended there (code
execution as the operator); a FIFO there (or at `--audit-log PATH`) hung `call`, `activate`,
`ensure` and `retire` for ever. Each command below is a real process with a timeout: a hang
fails here, it does not hang the suite."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dyntools.base.regular_files import NotRegularFile, open_append_regular
from tests.support.cli import run_cli

SLUG = '{"text": "A b"}'


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry whose slugify_text v1 is current."""
    root = tmp_path_factory.mktemp("audit")
    code, _, err = run_cli(["ensure", "slugify_text", "--registry", str(root / "reg")], root)
    assert code == 0, err
    return root / "reg"


@pytest.fixture
def reg(made: Path, tmp_path: Path) -> Path:
    """A copy of the registry, its audit.log removed."""
    import shutil

    copy = tmp_path / "reg"
    shutil.copytree(made, copy, symlinks=True)
    (copy / "audit.log").unlink(missing_ok=True)
    return copy


def test_a_regular_audit_file_is_appended_and_a_new_one_is_private(reg: Path) -> None:
    code, _, err = run_cli(["call", "slugify_text", "--params", SLUG, "--registry",
                            str(reg)], reg.parent)
    assert code == 0, err
    audit = reg / "audit.log"
    assert stat.S_IMODE(os.lstat(audit).st_mode) == 0o600
    assert '"pipeline.station"' in audit.read_text()
    code, _, err = run_cli(["call", "slugify_text", "--params", SLUG, "--registry",
                            str(reg)], reg.parent)
    assert code == 0, err
    assert audit.read_text().count('"station": "execute"') == 2  # appended, not replaced


@pytest.mark.parametrize("command", [["call", "slugify_text", "--params", SLUG],
                                     ["retire", "slugify_text", "1", "--reason", "x"]])
def test_a_symlinked_audit_log_is_never_followed(reg: Path, tmp_path: Path,
                                                 command: list[str]) -> None:
    victim = tmp_path / "bashrc"
    victim.write_text("# the operator's shell start-up file\n")
    (reg / "audit.log").symlink_to(victim)
    (reg / "$(touch PWNED)").touch()  # a file name that is a shell command
    code, _, err = run_cli([*command, "--registry", str(reg)], reg.parent)
    assert code == 0, err
    assert victim.read_text() == "# the operator's shell start-up file\n"
    assert str(reg / "audit.log") in err and "is a symlink, not a regular file" in err
    assert (reg / "audit.log").is_symlink()  # left as it is, for the operator to look at


def test_a_fifo_as_audit_log_does_not_hang(reg: Path) -> None:
    os.mkfifo(reg / "audit.log")
    code, out, err = run_cli(["call", "slugify_text", "--params", SLUG, "--registry",
                              str(reg)], reg.parent)
    assert code == 0, err
    assert "is a FIFO, not a regular file" in err and str(reg / "audit.log") in err
    assert "slug" in out


def test_a_fifo_named_by_audit_log_does_not_hang(reg: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "audit.fifo"
    os.mkfifo(fifo)
    code, _, err = run_cli(["activate", "slugify_text", "1", "--registry", str(reg),
                            "--audit-log", str(fifo)], reg.parent)
    assert code == 0, err
    assert "is a FIFO, not a regular file" in err and str(fifo) in err


def test_the_helper_opens_regular_files_only(tmp_path: Path) -> None:
    target = tmp_path / "log"
    fd = open_append_regular(target)
    try:
        assert os.get_blocking(fd)  # writes wait as usual: O_NONBLOCK was only for the open
        os.write(fd, b"one\n")
    finally:
        os.close(fd)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    (tmp_path / "link").symlink_to(target)
    with pytest.raises(NotRegularFile, match="is a symlink"):
        open_append_regular(tmp_path / "link")
    (tmp_path / "folder").mkdir()
    with pytest.raises(OSError, match=r"directory|folder"):
        open_append_regular(tmp_path / "folder")
    with pytest.raises(NotRegularFile, match="character device"):
        open_append_regular("/dev/null")
    assert target.read_bytes() == b"one\n"
