"""`dyntools serve-mcp`: the registry's tools (and `find_tools`, `call_tool`, `ensure_tool`,
`report_failure`) as an MCP server, on stdio or on streamable HTTP with a bearer token.

stdio: stdout carries the protocol and nothing else; logs go to stderr and to
`<registry>/audit.log` (stderr on a read-only registry, or --audit-log PATH); started from a
terminal, one line on stderr says it waits for a client on stdin. Nothing imports a model
SDK until ensure_tool first asks that model (start-up is the mcp package's). Exits 0 when
the client disconnects, 2 on a usage error (before serving starts: a bad option, a
non-loopback --host without --allow-remote, a bad token file, a bad registry path), 130 on
SIGINT and 143 on SIGTERM.
"""

from __future__ import annotations

import os
from typing import Any

import click

from dyntools.base.terminal import terminal_safe
from dyntools.cli.app import main
from dyntools.cli.options import (
    allow_weaker_click,
    allowlist_click,
    audit_log_option,
    capabilities_click,
    executor_options,
    isolation_click,
    log_level_click,
    registry_click,
    require_layers_click,
    sign_key_click,
    timeout_click,
    trusted_keys_click,
)
from dyntools.generators.factory import (
    GENERATOR_NAMES,
    MODEL_GENERATORS,
    OFFERED_GENERATORS,
)

# Not 8765 (the demo page's, which page_title and examples/demo_capabilities.toml name) nor
# 8766 (dyntools ui's).
DEFAULT_HTTP_PORT = 8767
WAITING_ON_A_TERMINAL = "waiting for an MCP client on stdin; see docs/adapters.md"
_OFF_BY_DEFAULT = [n for n in GENERATOR_NAMES if n not in OFFERED_GENERATORS]
GENERATOR_OPTIONS_HELP = (
    f"Comma list of generators ensure_tool offers: {', '.join(GENERATOR_NAMES)} (file lets "
    f"the client send the tool's source; {', '.join(_OFF_BY_DEFAULT)} off unless listed)."
)


@main.command("serve-mcp")
@click.option("--generators", "generator_names", default=",".join(OFFERED_GENERATORS),
              show_default=True, help=GENERATOR_OPTIONS_HELP)
@click.option("--model", default=None,
              help=f"Model id for ensure_tool ({', '.join(MODEL_GENERATORS)}).")
@click.option("--base-url", default=None, help="API base URL (openai: Ollama, vLLM, ...).")
@click.option("--api-key-env", default=None, help="Variable holding the API key.")
@click.option("--max-attempts", type=click.IntRange(min=1), default=3, show_default=True,
              help="Generation attempts when the gate refuses (models only).")
@click.option("--watch/--no-watch", default=True, show_default=True,
              help="Watch the registry folder and apply changes (and notify clients) live.")
@registry_click
@allowlist_click
@timeout_click
@require_layers_click
@log_level_click
@click.option("--tools", "tools_mode", type=click.Choice(["full", "compact"]), default="full",
              show_default=True,
              help="full: every tool plus find_tools, call_tool, ensure_tool (and the code "
                   "tools with --run-code); compact: only those (for large registries).")
@click.option("--run-code/--no-run-code", "run_code", default=False, show_default=True,
              help="Serve run_code and resume_run: a client's gated scripts whose "
                   "tools.NAME(...) calls reach exactly the tools this server serves.")
@click.option("--page-size", type=click.IntRange(min=1, max=1000), default=100,
              show_default=True, help="Tools per tools/list page.")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio",
              show_default=True, help="stdio, or the SDK's streamable HTTP (bearer token).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="http: the address to listen on (loopback unless --allow-remote).")
@click.option("--port", type=click.IntRange(min=0, max=65535), default=DEFAULT_HTTP_PORT,
              show_default=True, help="http: the port (0 picks a free one).")
@click.option("--token-file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="http: a file holding the bearer token clients must send; without it a "
                   "token is generated and printed once to stderr.")
@click.option("--allow-remote", is_flag=True,
              help="http: allow a --host that is not a loopback address.")
@executor_options
@trusted_keys_click
@audit_log_option
@capabilities_click
@allow_weaker_click
@click.option("--allow-unreviewed-repairs", is_flag=True,
              help="Let report_failure's repairs follow the registry's approval policy; "
                   "without it each waits for a reviewer (a counterexample comes from an "
                   "agent, perhaps a prompt-injected one, and changes the tool for everyone).")
@sign_key_click
@isolation_click
def serve_mcp(generator_names: str, model: str | None, base_url: str | None,
              api_key_env: str | None, max_attempts: int, watch: bool,
              registry_path: str | None, allowlist: str | None, timeout: float | None,
              require_layers: str | None, log_level: str, tools_mode: str, run_code: bool,
              page_size: int, transport: str, host: str, port: int, token_file: str | None,
              allow_remote: bool, executor: str | None, ray_address: str | None,
              trusted_keys: str | None, audit_log: str | None,
              capabilities: str | None, allow_weaker_sandbox: bool,
              allow_unreviewed_repairs: bool, sign_key: str | None, isolation: str) -> None:
    """Serve the registry's tools over MCP, with find_tools, call_tool and ensure_tool
    (and, with --run-code, run_code and resume_run: scripts over the served tools).

    A version ensure_tool activates is a decision: with --sign-key (or DYNTOOLS_SIGNING_KEY)
    it joins the tool's decision chain, signed; with trusted keys and no such key,
    ensure_tool can grow nothing (reason signing_key_required).

    Clients are notified when the tool list changes (a new version, a rollback, a quarantine,
    another process writing to the registry), in both protocol eras; clients that never
    refresh their list find and call every tool through find_tools and call_tool.
    """

    from dyntools.adapters.mcp_server import KNOWN_GENERATORS, McpToolServer
    from dyntools.catalog.core import Catalog
    from dyntools.cli.options import (
        allow_weaker_option,
        capability_policy_option,
        policy_option,
        registry_root,
        require_layers_option,
        sandbox_limits,
        setup_logging,
        signer_option,
        trusted_keys_option,
    )
    from dyntools.errors import DyntoolsError
    from dyntools.generators import Generator, build_generator
    from dyntools.pipeline.dyntools import Dyntools
    from dyntools.registry.core import Registry

    names = tuple(n.strip() for n in generator_names.split(",") if n.strip())
    unknown = sorted(set(names) - set(KNOWN_GENERATORS))
    if unknown or not names:
        raise click.UsageError(f"--generators: choose from {', '.join(KNOWN_GENERATORS)}"
                               + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    policy = policy_option(allowlist)
    layers = require_layers_option(require_layers)
    limits = sandbox_limits(timeout)
    granted = capability_policy_option(capabilities)
    options = {"model": model, "base_url": base_url, "api_key_env": api_key_env}

    def factory(name: str) -> Generator:
        given = options if name in MODEL_GENERATORS else {}
        return build_generator(name, policy=policy, capabilities=granted, **given)

    try:
        for name in names:
            if name in MODEL_GENERATORS:
                # Bad model options are refused before serving. The model's SDK is imported
                # (and a deprecated model logged) only when ensure_tool first asks it: reading
                # the SDK's model table here cost seconds of start-up.
                factory(name)
        token, sock = (_http_setup(token_file, host, port, allow_remote)
                       if transport == "http" else (None, None))
        if transport != "http" and (token_file or allow_remote):
            raise click.UsageError("--token-file and --allow-remote apply to --transport http")
        root = registry_root(registry_path, must_exist=False)
        keys = trusted_keys_option(trusted_keys)
        signer = signer_option(sign_key)
        setup_logging(log_level, root, audit=True, audit_log=audit_log)
        registry = Registry.open(root, policy, create=not root.exists(), trusted_keys=keys,
                                 lazy=True)
        dyntools = Dyntools(registry, limits=limits, require_layers=layers,
                            max_attempts=max_attempts, watch=watch, executor=executor,
                            ray_address=ray_address, capabilities=granted, signer=signer,
                            allow_weaker_sandbox=allow_weaker_option(allow_weaker_sandbox),
                            allow_unreviewed_repairs=allow_unreviewed_repairs,
                            isolation=isolation)
    except DyntoolsError as exc:
        click.echo(f"error: {exc.station}/{exc.reason}: {terminal_safe(exc.message)}",
                   err=True)
        raise SystemExit(2) from None
    if dyntools.allow_weaker_sandbox:  # stderr: stdout is the protocol's
        from dyntools.sandbox.minimum import weaker_notice

        click.echo(weaker_notice(flag=allow_weaker_sandbox), err=True)
    if transport == "http" and not token_file:
        # Shown once, here, and never logged or stored: copy it into the client's config.
        click.echo(f"bearer token (shown once): {token}", err=True)
    with Catalog(dyntools, generate=False) as catalog:
        server = McpToolServer(catalog, generators=names, generator_factory=factory,
                               timeout=timeout, tools=tools_mode, page_size=page_size,
                               run_code=run_code)
        try:
            if transport == "http":
                _serve_http(server, str(token), host, sock)
            else:
                _serve_stdio(server)
        finally:
            server.close()


def _serve_stdio(server: Any) -> None:
    import anyio

    from dyntools.adapters.mcp_server import serve_stdio

    if os.isatty(0):
        # A person ran it by hand: say what it waits for (stdin is the protocol).
        click.echo(WAITING_ON_A_TERMINAL, err=True)
    anyio.run(serve_stdio, server)


def _serve_http(server: Any, token: str, host: str, sock: Any) -> None:
    import anyio

    from dyntools.adapters.mcp_http import serve_http

    def ready(url: str) -> None:
        click.echo(f"serving MCP on {url}", err=True)

    anyio.run(lambda: serve_http(server, token=token, host=host, sock=sock, ready=ready))


def _http_setup(token_file: str | None, host: str, port: int,
                allow_remote: bool) -> tuple[str, Any]:
    """The bearer token (read, or generated) and the bound socket, before anything serves."""
    from dyntools.adapters.mcp_http import bind, check_token
    from dyntools.base.listening import new_token, read_token

    token = check_token(read_token(token_file) if token_file else new_token())
    return token, bind(host, port, allow_remote=allow_remote)
