"""The shared leaves: small modules every part may use, each importing nothing of dyntools but
other modules of this folder and the public error tree (`dyntools.errors`, which imports
nothing). The gate imports only `dyntools.gate`, these and the standard library
(docs/architecture.md; `tests/test_import_graph.py` holds the rule)."""
