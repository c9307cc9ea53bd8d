"""The real server and the real browser for the page tests (and the docs' screenshots).

    with UiServer(registry) as server:           # `dyntools ui --port 0` as a subprocess
        server.url, server.token, server.cookie
    browser = launch(playwright)                 # Debian's chromium, headless

The browser is Debian's `chromium` package (no browser download is possible here):
`DYNTOOLS_CHROMIUM`, else /usr/bin/chromium, else `chromium` on PATH. `make test` installs
it when it is missing; under `make test` (DYNTOOLS_REQUIRE_EXTRAS=1) or CI a missing browser
or a missing Playwright fails the page tests, elsewhere they skip, saying what to install.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.environment import everything_required

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
MISSING_HINT = ("install Debian's chromium (`apt-get install chromium`, as root; `make test` "
                "does it) or point DYNTOOLS_CHROMIUM at a Chromium binary, and Playwright "
                "(`pip install -e '.[dev]'`)")


def chromium_path() -> str | None:
    """DYNTOOLS_CHROMIUM when set (and only it), else Debian's path, else PATH."""
    chosen = os.environ.get("DYNTOOLS_CHROMIUM")
    if chosen:
        return chosen if os.access(chosen, os.X_OK) else None
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def missing() -> str | None:
    """What the page tests lack, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed"
    if chromium_path() is None:
        where = os.environ.get("DYNTOOLS_CHROMIUM") or "/usr/bin/chromium"
        return f"no Chromium binary ({where} is missing)"
    return None


def require_browser() -> str:
    """The Chromium path, or fail (under make test / CI) or skip, saying what is missing."""
    problem = missing()
    if problem is not None:
        message = f"the UI page tests need a browser: {problem}; {MISSING_HINT}"
        if everything_required():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    path = chromium_path()
    assert path is not None
    return path


def launch(playwright: Any, executable: str) -> Any:
    return playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS,
                                      headless=True)


class UiServer:
    """`dyntools ui --registry R --port 0` in a subprocess; stopped with SIGINT."""

    def __init__(self, registry: Path, *extra: str, env: dict[str, str] | None = None) -> None:
        self.registry = registry
        self.extra = extra
        self.env = {**os.environ, **(env or {})}
        self.env.pop("DYNTOOLS_AUDIT_LOG", None)
        self.process: subprocess.Popen[str] | None = None
        self.lines: list[str] = []
        self.url = self.token = ""
        self.port = 0

    def __enter__(self) -> UiServer:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dyntools", "ui", "--registry", str(self.registry),
             "--port", "0", *self.extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env,
            start_new_session=True)
        assert self.process.stderr is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                raise AssertionError(f"dyntools ui ended before serving: {self.lines}")
            self.lines.append(line.rstrip("\n"))
            if line.startswith("session token (shown once): "):
                self.token = line.split(": ", 1)[1].strip()
            if line.startswith("open: "):
                self.url = line.split(": ", 1)[1].split("/login")[0].strip()
                self.port = int(self.url.rsplit(":", 1)[1])
                self._wait_ready()
                return self
        raise AssertionError(f"dyntools ui did not start: {self.lines}")

    def _wait_ready(self) -> None:
        import httpx

        for _ in range(100):
            try:
                httpx.get(self.url + "/login", timeout=2)
                return
            except httpx.TransportError:
                time.sleep(0.05)

    @property
    def cookie_name(self) -> str:
        return f"dyntools_ui_{self.port}"

    @property
    def login_url(self) -> str:
        return f"{self.url}/login#token={self.token}"

    def stop(self) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        assert self.process.stderr is not None
        self.lines += self.process.stderr.read().splitlines()
        return self.process.returncode

    def __exit__(self, *exc: object) -> None:
        self.stop()
