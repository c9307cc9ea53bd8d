"""Under `make test` a missing browser fails the page tests; elsewhere they skip, saying what
to install. (The Makefile's `browser` step installs Debian's chromium when it may.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from . import browser

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_browser_is_an_error_when_extras_are_required(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DYNTOOLS_REQUIRE_EXTRAS", "1")
    monkeypatch.setenv("DYNTOOLS_CHROMIUM", str(tmp_path / "no-chromium"))
    with pytest.raises(pytest.fail.Exception, match=r"no Chromium binary .*apt-get install"):
        browser.require_browser()


def test_a_missing_browser_skips_elsewhere(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.delenv("DYNTOOLS_REQUIRE_EXTRAS", raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("DYNTOOLS_CHROMIUM", str(tmp_path / "no-chromium"))
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        browser.require_browser()


def test_make_says_what_is_missing_when_it_may_not_install(tmp_path: Path) -> None:
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "browser",
                           f"CHROMIUM={tmp_path / 'none'}", "CHROMIUM_INSTALL=no"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert f"the UI page tests need Chromium and {tmp_path / 'none'} is missing" in done.stdout
    assert "apt-get install chromium" in done.stdout
