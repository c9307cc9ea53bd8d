"""The application: what a running page holds, and the ASGI app built over it.

    ui = UiState.open(registry, session=Session(token), audit_path=..., signer=None)
    app = create_app(ui, hosts=allowed_hosts(sock, host))   # Guard(Starlette(...))
    ...
    ui.close()

One `Registry` (watched, so writes by other processes show up), one `Dyntools` over it for
approvals (the object `dyntools approve` builds), one `Catalog` for search (`dyntools
search`'s), one `RunFeed` over the audit log, and the content cache.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from dyntools.registry import Registry
from dyntools.registry.signing import Signer
from dyntools.ui.queries import ContentCache
from dyntools.ui.runs import RunFeed
from dyntools.ui.security import Guard, Session

STATIC = Path(__file__).parent / "static"


@dataclass
class UiState:
    registry: Registry
    session: Session
    feed: RunFeed
    dyntools: Any  # dyntools.pipeline.Dyntools
    catalog: Any  # dyntools.catalog.Catalog
    signer: Signer | None = None
    contents: ContentCache = field(default_factory=ContentCache)
    watcher: Any = None
    templates: Any = None
    streams: int = 0

    @classmethod
    def open(cls, registry: Registry, *, session: Session, audit_path: Path,
             signer: Signer | None = None, watch: bool = True) -> UiState:
        from dyntools.catalog import Catalog
        from dyntools.pipeline import Dyntools
        from dyntools.ui.render import environment

        dyntools = Dyntools(registry, signer=signer)
        state = cls(registry=registry, session=session, feed=RunFeed(audit_path),
                    dyntools=dyntools, catalog=Catalog(dyntools, generate=False),
                    signer=signer, templates=environment())
        state.feed.poll()
        if watch:
            state.watcher = registry.watch()
        # Read what the registry page shows once, in the background, so the first visit
        # does not pay for reading and parsing every tool's file.
        threading.Thread(target=state.warm, name="dyntools-ui-warm", daemon=True).start()
        return state

    def warm(self) -> None:
        from dyntools.log import get_logger
        from dyntools.ui.queries import registry_rows

        try:
            registry_rows(self)
        except Exception as exc:  # a cache fill only: the page reports problems itself
            get_logger("ui").warning("ui.warm_failed", error=f"{type(exc).__name__}: {exc}")

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        self.catalog.close()  # closes the Dyntools too


def create_app(ui: UiState, *, hosts: frozenset[str] | None) -> Guard:
    from dyntools.ui import routes

    app = Starlette(
        routes=[
            Route("/", routes.registry_page),
            Route("/login", routes.login_page, methods=["GET"]),
            Route("/login", routes.login, methods=["POST"]),
            Route("/logout", routes.logout, methods=["POST"]),
            Route("/tools/{name}", routes.tool_page),
            Route("/tools/{name}/v/{version:int}", routes.version_page),
            Route("/tools/{name}/v/{version:int}/{action}", routes.decision, methods=["POST"]),
            Route("/tools/{name}/diff", routes.diff_page),
            Route("/runs", routes.runs_page),
            Route("/runs/stream", routes.runs_stream),
            Route("/bench", routes.bench_page),
            Route("/bench/check", routes.bench_check, methods=["POST"]),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ],
        exception_handlers={HTTPException: routes.http_error, Exception: routes.server_error},
    )
    app.state.ui = ui
    return Guard(app, ui.session, hosts)
