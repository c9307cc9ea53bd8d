"""The review workbench: `dyntools ui`, a local page over the same functions as the CLI.

    state.py      what a running page holds (UiState)
    app.py        the ASGI app over it (create_app)
    content.py    what a version's bytes declare (metadata, capabilities), cached by hash
    routes.py     the pages and endpoints (GET reads, POST writes)
    queries.py    what the pages show, read from the registry (no HTML, no writes)
    decisions.py  the writes: the very calls the CLI's approve, reject, activate, rollback
                  and retire make
    runs.py       the audit log as a timeline of ensure runs, followed live
    render.py     Jinja2 (autoescape on) and `visible`, which every piece of tool text
                  goes through
    security.py   binding, the session token, CSRF, Host and Origin checks, headers
    server.py     uvicorn on an already bound socket
    templates/, static/   the page itself: HTML, one stylesheet, one plain script

Nothing here imports the CLI; the CLI command (dyntools/cli/ui_cmd.py) builds a `UiState`
and calls `serve`.
"""
