"""Serve the page with uvicorn on a socket bound beforehand (so `--port 0` picks a free port
and the printed URL is the real one)."""

from __future__ import annotations

import socket

from dyntools.base.listening import ASGIApp

# Live timelines are open streams: on Ctrl-C they get this long to end before they are cut.
GRACEFUL_SECONDS = 1


def serve(app: ASGIApp, sock: socket.socket) -> None:
    """Serve until SIGINT or SIGTERM (uvicorn re-raises the signal once it has stopped)."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            server_header=False, date_header=False,
                            timeout_graceful_shutdown=GRACEFUL_SECONDS)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
