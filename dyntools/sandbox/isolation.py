"""How far apart two calls of the same tool version run: the operator's `isolation` choice.

- `"worker"` (the default): a warm worker serves call after call. What one call leaves in the
  tool's state is compared after it (sandbox/worker/state.py) and spends the worker when it
  changed, but the process itself is shared: its memory allocator (which free block the next
  object gets, an address `repr()` shows) and the like carry what one caller did to the next.
- `"call"`: no process that ran one call ever runs another. Each call gets a worker forked
  for it from the zygote (already loaded, so it costs a fork, a module load and the layers,
  not an interpreter start; bench/isolation.py measures it); a warm pool starts the next
  one in the background as soon as a call is over. Choose it for a server that serves several
  users with tools nobody reviewed (docs/sandbox.md, "What a warm worker shares").
"""

from __future__ import annotations

from dyntools.errors import UsageError

WORKER = "worker"
CALL = "call"
ISOLATIONS = (WORKER, CALL)


def check_isolation(value: object) -> str:
    """`value` if it names an isolation mode; otherwise a `UsageError` naming the choices."""
    if not isinstance(value, str) or value not in ISOLATIONS:
        raise UsageError(f"isolation must be one of {', '.join(map(repr, ISOLATIONS))}, "
                         f"got {value!r}")
    return value
