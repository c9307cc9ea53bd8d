"""The worker side of the sandbox: the modules the child process loads (its entry point,
`python -m dyntools.sandbox.worker`, is `process.main`).

Nothing here imports anything of dyntools outside this folder (docs/architecture.md;
`tests/test_import_graph.py` holds it on the graph and at run time): the worker runs inside
the sandbox, and its start-up is the cold call's budget. The host side imports `protocol`,
`astcodec` and `layers` from here; this package's `__init__` imports nothing, so that costs
the host nothing else.
"""
