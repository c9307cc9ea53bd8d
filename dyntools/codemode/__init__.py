"""Code mode: scripts that call the registry's tools, wait for decisions and become tools.

    outcome = dt.run_code('result = tools.slugify_text(text=inputs["title"])',
                          {"title": "Hello World"})
    outcome.status, outcome.result, outcome.trace     # "ok", {"slug": "hello-world"}, [...]
    dt.resume_run(run_id)                             # after a decision on a waiting call
    dt.promote(run_id, "title_slug")                  # the script, as a gated, verified tool

A script (DESIGN.md section 18) is checked by the gate's script mode (dyntools/gate/script.py),
wrapped host-side into `run(inputs)` with every `tools.NAME(**params)` rewritten into one
request to the host (wrap.py), and run in a sandboxed worker under every layer. Each of its
tool calls goes through the host (host.py) to that tool's own worker, under that tool's
capabilities and secrets, on the surface the caller reaches directly: the registry's current
tools for the library and the CLI, the served tools for the MCP server, the catalog an
adapter was given. A call to a tool that has only a pending version suspends the run; a
resume replays the script from its recorded calls (engine.py says why). Runs are kept under
`<registry>/.runs/` (store.py). Nothing here is imported by `import dyntools`.
"""
