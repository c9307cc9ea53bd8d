"""Build the review scene and take the docs' screenshots (docs/ui-*.png):

    .venv/bin/python tests/ui/make_screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.ui.browser import UiServer, chromium_path, launch  # noqa: E402
from tests.ui.scenes import build  # noqa: E402

SHOTS = [
    ("ui-registry.png", "/", None),
    ("ui-version-findings.png", "/tools/roman_numeral/v/4", None),
    ("ui-version-pending.png", "/tools/fetch_title/v/2", None),
    ("ui-diff.png", "/tools/fetch_title/diff?a=1&b=2", None),
    ("ui-hostile-text.png", "/tools/html_probe/v/3", None),
    ("ui-runs.png", "/runs", None),
    ("ui-bench.png", "/bench", "bench"),
]


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        registry = build(Path(tmp) / "registry")
        with UiServer(registry) as server, sync_playwright() as pw:
            browser = launch(pw, chromium_path() or "/usr/bin/chromium")
            page = browser.new_page(viewport={"width": 1360, "height": 900})
            page.goto(server.login_url)
            page.wait_for_url(server.url + "/")
            for name, path, special in SHOTS:
                page.goto(server.url + path)
                if special == "bench":
                    source = (ROOT / "examples" / "attack_dunder_escape.py").read_text()
                    page.fill("#bench-input", source)
                    page.wait_for_selector("#bench-output table.source")
                page.screenshot(path=str(ROOT / "docs" / name), full_page=special != "bench")
                print("wrote", name)
            browser.close()


if __name__ == "__main__":
    main()
