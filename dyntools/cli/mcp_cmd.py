"""`dyntools serve-mcp`: the registry's tools (and `ensure_tool`) as an MCP server on stdio.

stdout carries the protocol and nothing else: logs go to stderr and to `<registry>/audit.log`.
Exits 0 when the client disconnects, 2 on a usage error (before serving starts).
"""

from __future__ import annotations

import click

from dyntools.cli import main

GENERATOR_OPTIONS_HELP = (
    "Comma list of generators ensure_tool offers: offline, anthropic, openai, and file (lets "
    "the client send the tool's source; off unless listed)."
)


@main.command("serve-mcp")
@click.option("--generators", "generator_names", default="offline,anthropic,openai",
              show_default=True, help=GENERATOR_OPTIONS_HELP)
@click.option("--model", default=None, help="Model id for ensure_tool (anthropic, openai).")
@click.option("--base-url", default=None, help="API base URL (openai: Ollama, vLLM, ...).")
@click.option("--api-key-env", default=None, help="Variable holding the API key.")
@click.option("--max-attempts", type=click.IntRange(min=1), default=3, show_default=True,
              help="Generation attempts when the gate refuses (models only).")
@click.option("--watch/--no-watch", default=True, show_default=True,
              help="Watch the registry folder and apply changes (and notify clients) live.")
@click.option("--registry", "registry_path", type=click.Path(file_okay=False), default=None,
              help="Registry folder (default: DYNTOOLS_REGISTRY, else ./generated_tools).")
@click.option("--allowlist", type=click.Path(dir_okay=False), default=None,
              help="Policy file (default: DYNTOOLS_ALLOWLIST, else the shipped allowlist.toml).")
@click.option("--timeout", type=float, default=None,
              help="Wall-clock limit per sandboxed call, in seconds.")
@click.option("--require-layers", default=None,
              help="Comma list of sandbox layers that must be active, or 'all'.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]),
              default="warning", show_default=True,
              help="Log level on stderr (the registry's audit.log always gets info).")
def serve_mcp(generator_names: str, model: str | None, base_url: str | None,
              api_key_env: str | None, max_attempts: int, watch: bool,
              registry_path: str | None, allowlist: str | None, timeout: float | None,
              require_layers: str | None, log_level: str) -> None:
    """Serve the registry's tools over MCP (stdio), with ensure_tool to create missing ones.

    Clients are notified when the tool list changes (a new version, a rollback, a quarantine,
    another process writing to the registry), in both protocol eras.
    """
    import anyio

    from dyntools.adapters.mcp_server import KNOWN_GENERATORS, McpToolServer, serve_stdio
    from dyntools.catalog import Catalog
    from dyntools.cli.check_cmd import policy_option
    from dyntools.cli.options import configure_logs, sandbox_limits
    from dyntools.cli.options import require_layers as require_layers_option
    from dyntools.errors import DyntoolsError
    from dyntools.generators import Generator, build_generator
    from dyntools.pipeline import Dyntools
    from dyntools.registry import resolve_registry_path

    names = tuple(n.strip() for n in generator_names.split(",") if n.strip())
    unknown = sorted(set(names) - set(KNOWN_GENERATORS))
    if unknown or not names:
        raise click.UsageError(f"--generators: choose from {', '.join(KNOWN_GENERATORS)}"
                               + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    policy = policy_option(allowlist)
    layers = require_layers_option(require_layers)
    limits = sandbox_limits(timeout)
    root = resolve_registry_path(registry_path)
    options = {"model": model, "base_url": base_url, "api_key_env": api_key_env}

    def factory(name: str) -> Generator:
        given = options if name in ("anthropic", "openai") else {}
        return build_generator(name, policy=policy, **given)

    try:
        configure_logs(log_level, root, audit=True)
        dyntools = Dyntools(root, policy=policy, limits=limits, require_layers=layers,
                            max_attempts=max_attempts, watch=watch)
    except DyntoolsError as exc:
        raise click.UsageError(f"{exc.station}/{exc.reason}: {exc.message}") from exc
    with Catalog(dyntools, generate=False) as catalog:
        server = McpToolServer(catalog, generators=names, generator_factory=factory,
                               timeout=timeout)
        try:
            anyio.run(serve_stdio, server)
        except KeyboardInterrupt:
            pass
        finally:
            server.close()
