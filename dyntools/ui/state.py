"""What a running page holds: the registry, the session, the run feed, the Dyntools that
decides (the object `dyntools approve` builds), the Catalog that searches, the content cache.

    ui = UiState.open(registry, session=Session(token), audit_path=..., signer=None)
    ...
    ui.close()
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dyntools.registry.core import Registry
from dyntools.registry.signing import Signer
from dyntools.ui.content import ContentCache
from dyntools.ui.runs import RunFeed
from dyntools.ui.security import Session


@dataclass
class UiState:
    registry: Registry
    session: Session
    feed: RunFeed
    dyntools: Any  # dyntools.pipeline.Dyntools
    catalog: Any  # dyntools.catalog.core.Catalog
    signer: Signer | None = None
    contents: ContentCache = field(default_factory=ContentCache)
    watcher: Any = None
    templates: Any = None
    streams: int = 0
    weaker_sandbox_flag: bool = False  # `--allow-weaker-sandbox` given (else the env's opt-in)
    health: tuple[dict[str, Any], float] | None = None  # the last /health report, and when
    health_error: str | None = None

    @classmethod
    def open(cls, registry: Registry, *, session: Session, audit_path: Path,
             signer: Signer | None = None, watch: bool = True,
             allow_weaker_sandbox: bool | None = None) -> UiState:
        """`allow_weaker_sandbox`: the decisions' verification may run tool code below the
        sandbox's default minimum (None: DYNTOOLS_ALLOW_WEAKER_SANDBOX decides)."""
        from dyntools.catalog.core import Catalog
        from dyntools.pipeline.dyntools import Dyntools
        from dyntools.ui.render import environment

        dyntools = Dyntools(registry, signer=signer, allow_weaker_sandbox=allow_weaker_sandbox)
        state = cls(registry=registry, session=session, feed=RunFeed(audit_path),
                    dyntools=dyntools, catalog=Catalog(dyntools, generate=False),
                    signer=signer, templates=environment(),
                    weaker_sandbox_flag=bool(allow_weaker_sandbox))
        state.feed.poll()
        if watch:
            state.watcher = registry.watch()
        return state

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        self.catalog.close()  # closes the Dyntools too
