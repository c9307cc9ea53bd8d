"""`python -m dyntools.sandbox.worker`: the worker process (see process.py)."""

from dyntools.sandbox.worker.process import main

main()
