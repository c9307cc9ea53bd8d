"""`dyntools ui`: the review workbench, a local page over the registry.

    dyntools ui [--registry R] [--host 127.0.0.1] [--port 8766]

Prints the URL and the session token once, on stderr, then serves until Ctrl-C (exit 130;
143 on SIGTERM). Exit 2 before serving on a usage error: a bad registry path, a non-loopback
--host without --allow-remote, a port in use, a bad token or key file.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from dyntools.cli.app import main
from dyntools.cli.options import (
    AUDIT_LOG_ENV,
    allow_weaker_click,
    allow_weaker_option,
    sign_key_click,
    signer_option,
)
from dyntools.cli.registry_cmd import writer_options
from dyntools.registry.core import Registry

DEFAULT_PORT = 8766




@main.command("ui")
@writer_options
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (loopback unless --allow-remote).")
@click.option("--port", type=click.IntRange(min=0, max=65535), default=DEFAULT_PORT,
              show_default=True, help="The port (0 picks a free one).")
@click.option("--allow-remote", is_flag=True,
              help="Allow a --host that is not a loopback address.")
@click.option("--token-file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="A file holding the session token; without it one is generated and "
                   "printed once to stderr.")
@sign_key_click
@click.option("--watch/--no-watch", default=True, show_default=True,
              help="Watch the registry folder: changes made by other processes show live.")
@allow_weaker_click
def ui(registry: Registry, host: str, port: int, allow_remote: bool, token_file: str | None,
       sign_key: str | None, watch: bool, allow_weaker_sandbox: bool) -> None:
    """Serve the review workbench: the registry, each version's source with the gate's
    findings inline, diffs, provenance, decisions (approve, reject, activate, rollback,
    retire: the CLI's own functions), the audit log's runs live, and a gate bench.

    Every page needs the session token printed at start; every write also needs the page's
    CSRF token and comes only from the page itself (Origin and Host are checked).
    """
    from dyntools.base.listening import new_token, read_token
    from dyntools.ui.app import create_app
    from dyntools.ui.security import Session, allowed_hosts, bind, check_token, url_for
    from dyntools.ui.server import serve
    from dyntools.ui.state import UiState

    token = check_token(read_token(token_file) if token_file else new_token())
    signer = signer_option(sign_key)
    sock = bind(host, port, allow_remote=allow_remote)
    audit_log = click.get_current_context().params.get("audit_log")
    audit_path = Path(audit_log or os.environ.get(AUDIT_LOG_ENV) or registry.root / "audit.log")
    url = url_for(sock, host)
    session = Session(token, cookie_name=f"dyntools_ui_{sock.getsockname()[1]}")
    state = UiState.open(registry, session=session, audit_path=audit_path, signer=signer,
                         watch=watch,
                         allow_weaker_sandbox=allow_weaker_option(allow_weaker_sandbox))
    try:
        app = create_app(state, hosts=allowed_hosts(sock, host))
        click.echo(f"dyntools ui: {registry.root} on {url}/ (Ctrl-C stops)", err=True)
        if state.dyntools.allow_weaker_sandbox:
            from dyntools.sandbox.minimum import weaker_notice

            click.echo(weaker_notice(flag=allow_weaker_sandbox), err=True)
        if not token_file:
            click.echo(f"session token (shown once): {token}", err=True)
        click.echo(f"open: {url}/login#token={token}" if not token_file
                   else f"open: {url}/login (the token is in {token_file})", err=True)
        serve(app, sock)
    finally:
        state.close()
