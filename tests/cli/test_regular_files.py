"""Files the CLI reads are regular files (issue 26): a FIFO (which used to hang every command
named with it), a device, a folder, a symlink to each and a missing file are each one clear
error, for every option that names a file to read and for the tool files of `check` and
`exec`. Each case has a timeout: a read that waits would fail here, not hang the suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from dyntools.base.regular_files import NotRegularFile, open_regular, read_regular
from dyntools.cli import main
from dyntools.registry import Registry
from dyntools.registry.signing import generate_keypair

REPO = Path(__file__).resolve().parents[2]
SLUGIFY = (REPO / "dyntools" / "generators" / "templates" / "slugify_text.py").read_text("utf-8")

# What each kind of path is called in the error (click's own words for the options it checks
# first: a folder where a file is wanted, a file that must exist).
SAID = {
    "fifo": ("is a FIFO, not a regular file",),
    "device": ("is a character device, not a regular file",),
    "folder": ("is a folder, not a regular file", "is a directory"),
    "missing": ("No such file or directory", "does not exist"),
}
KINDS = ["fifo", "device", "folder", "link-to-fifo", "link-to-device", "link-to-folder",
         "missing", "link-to-missing"]


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("files")
    os.mkfifo(root / "fifo")
    (root / "folder").mkdir()
    targets = {"fifo": root / "fifo", "device": Path("/dev/zero"), "folder": root / "folder",
               "missing": root / "missing"}
    for kind, target in targets.items():
        (root / f"link-to-{kind}").symlink_to(target)
    (root / "good.py").write_text(SLUGIFY, "utf-8")
    registry = Registry.open(root / "reg")
    registry.add_version("slugify_text", SLUGIFY, {"generator": "test"})
    return root


def path_of(place: Path, kind: str) -> str:
    return "/dev/zero" if kind == "device" else str(place / kind)


# option -> the command line that reads the file it names ({f}: the path, {d}: the folder)
COMMANDS = {
    "--trusted-keys": ["list", "--registry", "{d}/reg", "--trusted-keys", "{f}"],
    "--sign-key": ["approve", "slugify_text", "1", "--registry", "{d}/reg", "--sign-key",
                   "{f}"],
    "--allowlist": ["check", "--allowlist", "{f}", "{d}/good.py"],
    "--capabilities": ["exec", "{d}/good.py", "--params", '{{"text": "a"}}', "--capabilities",
                       "{f}"],
    "serve-mcp --token-file": ["serve-mcp", "--registry", "{d}/reg", "--transport", "http",
                               "--port", "0", "--token-file", "{f}"],
    "ui --token-file": ["ui", "--registry", "{d}/reg", "--port", "0", "--token-file", "{f}"],
    "--from": ["ensure", "new_tool", "--registry", "{d}/reg", "--generator", "file", "--from",
               "{f}"],
    "approve --file": ["approve", "slugify_text", "--registry", "{d}/reg", "--file", "{f}"],
    "check FILE": ["check", "{f}"],
    "exec FILE": ["exec", "{f}", "--params", "{{}}"],
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("option", list(COMMANDS))
def test_a_path_that_is_not_a_regular_file_is_one_clear_error(place: Path, option: str,
                                                              kind: str) -> None:
    argv = [arg.format(f=path_of(place, kind), d=place) for arg in COMMANDS[option]]
    result = CliRunner().invoke(main, argv, env={"DYNTOOLS_SIGNING_KEY": None})
    assert result.exit_code not in (0, None), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)  # no traceback: a clean exit with a code
    assert "Traceback" not in result.output
    said = SAID[kind.removeprefix("link-to-")]
    assert any(words in result.output for words in said), result.output


@pytest.mark.timeout(60)
def test_the_environment_variables_read_the_same_way(place: Path) -> None:
    for name, argv in (("DYNTOOLS_TRUSTED_KEYS", ["list", "--registry", f"{place}/reg"]),
                       ("DYNTOOLS_ALLOWLIST", ["check", f"{place}/good.py"]),
                       ("DYNTOOLS_CAPABILITIES", ["exec", f"{place}/good.py", "--params",
                                                  '{"text": "a"}'])):
        result = CliRunner().invoke(main, argv, env={name: str(place / "fifo")})
        assert result.exit_code == 2, (name, result.output)
        assert "is a FIFO, not a regular file" in result.output, (name, result.output)


@pytest.mark.timeout(60)
def test_regular_files_and_symlinks_to_them_are_read(place: Path, tmp_path: Path) -> None:
    _, public, _ = generate_keypair(tmp_path / "alice.key")
    (tmp_path / "alice.pub").symlink_to(public)
    listed = CliRunner().invoke(main, ["list", "--registry", f"{place}/reg", "--trusted-keys",
                                       str(tmp_path / "alice.pub")])
    assert listed.exit_code == 0, listed.output
    (tmp_path / "allowlist.toml").symlink_to(REPO / "allowlist.toml")
    checked = CliRunner().invoke(main, ["check", "--allowlist", str(tmp_path / "allowlist.toml"),
                                        f"{place}/good.py"])
    assert (checked.exit_code, checked.output) == (0, f"{place}/good.py: accepted\n")


@pytest.mark.timeout(30)
def test_the_helper_checks_what_it_opened(place: Path, tmp_path: Path) -> None:
    for kind, said in (("fifo", "FIFO"), ("folder", "folder"), ("link-to-fifo", "FIFO")):
        with pytest.raises(NotRegularFile) as info:
            open_regular(place / kind)
        assert info.value.kind == said
        assert info.value.strerror == f"is a {said}, not a regular file"
    with pytest.raises(NotRegularFile, match="character device"):
        read_regular("/dev/zero", 10)
    with pytest.raises(FileNotFoundError):
        read_regular(place / "missing", 10)
    (tmp_path / "small").write_bytes(b"0123456789")
    assert read_regular(tmp_path / "small", 4) == b"0123"
    with open_regular(tmp_path / "small") as handle:
        assert handle.read() == b"0123456789"
