"""Loading the allow-list at dyntools' own boundaries (the CLI, `Registry.open`, `Dyntools`,
the model generators): a file that cannot be read or parsed is a `PolicyLoadError` from the
one error tree (station "policy", exit 2 in the CLI), never the gate's bare ValueError.

    policy = load_allowlist()            # DYNTOOLS_ALLOWLIST, else the shipped allowlist.toml
    policy = load_allowlist("strict.toml")

The gate itself (`dyntools.gate.policy`) keeps its own `PolicyError`: the gate imports nothing
from the rest of dyntools (see docs/architecture.md), so the translation happens here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dyntools.gate.policy import Policy


def load_allowlist(path: str | os.PathLike[str] | None = None) -> Policy:
    """The policy at `path` (None: the default allow-list); PolicyLoadError naming the file
    and the problem when it cannot be read or is not a valid allow-list."""
    from dyntools.gate.policy import PolicyError, default_allowlist_path, load_policy

    try:
        return load_policy(path)
    except PolicyError as exc:
        # dyntools.errors (its ~40 classes) only now: a `dyntools check` of an allow-list
        # that loads never needs it
        from dyntools.errors import PolicyLoadError

        where = str(path) if path is not None else str(default_allowlist_path())
        raise PolicyLoadError(str(exc), path=where) from exc
