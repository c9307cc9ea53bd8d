"""A registry's identity: `<root>/identity`, 32 random hex digits written once, when the first
signed decision is made (or by `dyntools init`), and signed into every chain record.

Threat (red team F6): one reviewer key signs decisions in two registries (staging and
prod). A prod writer with no key copied staging's approved `greet` folder into prod, and its
chain verified: its records were signed by a trusted key and said nothing of where they
belong. Each record now names the registry it was made in; a reader refuses a chain whose
head names another registry than the one it is reading.

What remains: a writer can copy staging's `identity` file over prod's too. Then every chain
prod signed names the wrong registry and prod stops serving (loud, not silent); a consumer
that accepted prod's heads refuses staging's chains anyway (they do not extend them). Only a
consumer with no state, shown a wholesale copy of another registry signed by the same key,
cannot tell (docs/registry.md).

The file is read without following a symlink, bounded, and must hold exactly 32 lowercase hex
digits; anything else is `IdentityError` (never a silent new identity: that would unbind
every chain).
"""

from __future__ import annotations

import errno
import re
import secrets
from pathlib import Path

IDENTITY_NAME = "identity"
_SHAPE = re.compile(r"[0-9a-f]{32}")


class IdentityError(ValueError):
    """The identity file cannot be read, or does not hold an identity."""


def is_identity(value: object) -> bool:
    return isinstance(value, str) and _SHAPE.fullmatch(value) is not None


def read_identity(root: Path) -> str | None:
    """The registry's identity; None when it has none yet; IdentityError when the file is
    there but is not one."""
    from dyntools.registry.store import read_regular

    path = root / IDENTITY_NAME
    try:
        data = read_regular(path, limit=64)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise IdentityError(f"{path} cannot be read: {exc.strerror or exc}") from None
    text = data.decode("ascii", "replace").strip()
    if not is_identity(text):
        raise IdentityError(f"{path} does not hold a registry identity (32 hex digits)")
    return text


def ensure_identity(root: Path) -> str:
    """The registry's identity, made now if it has none (call under the writer lock)."""
    from dyntools.registry.store import link_new, sync_all

    found = read_identity(root)
    if found is not None:
        return found
    made = secrets.token_hex(16)
    path = root / IDENTITY_NAME
    try:
        link_new(path, (made + "\n").encode("ascii"), mode=0o644)
        sync_all([path, root])
    except FileExistsError:
        pass  # another writer made it first: theirs holds
    except OSError as exc:
        if exc.errno != errno.EEXIST:
            raise IdentityError(f"cannot write {path}: {exc.strerror or exc}") from None
    found = read_identity(root)
    if found is None:
        raise IdentityError(f"{path} vanished as it was written")
    return found
