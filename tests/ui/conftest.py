"""Fixtures for the UI tests: the review scene, the real server, the real browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser import UiServer, launch, require_browser
from .scenes import build


@pytest.fixture(scope="session")
def chromium() -> str:
    return require_browser()


@pytest.fixture(scope="package")
def browser(chromium: str) -> Iterator[Any]:
    # Package scope: Playwright's sync API keeps an event loop running in this thread while
    # it is open, which would break every later test that starts one (anyio.run).
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright, chromium)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The read-only review scene (tests that decide build their own registry)."""
    return build(tmp_path_factory.mktemp("scene") / "registry")


@pytest.fixture(scope="session")
def scene_server(scene: Path) -> Iterator[UiServer]:
    with UiServer(scene) as server:
        yield server


class Visit:
    """A logged-in browser tab on a server, recording page errors and CSP violations."""

    def __init__(self, browser: Any, server: UiServer) -> None:
        self.server = server
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("dialog", lambda dialog: dialog.accept())
        self.page.goto(server.login_url)
        self.page.wait_for_url(server.url + "/")

    def go(self, path: str) -> Any:
        response = self.page.goto(self.server.url + path)
        assert response is not None
        return response

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser: Any) -> Iterator[Any]:
    opened: list[Visit] = []

    def open_(server: UiServer) -> Visit:
        tab = Visit(browser, server)
        opened.append(tab)
        return tab

    yield open_
    for tab in opened:
        tab.close()
