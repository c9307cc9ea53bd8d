"""Signed approvals: an Ed25519 signature over a version's record, checked against keys kept
outside the registry.

    dyntools keygen reviewer.key          # reviewer.key (private, 0600) + reviewer.key.pub
    signer = load_signing_key("reviewer.key", by="alice")
    trusted = load_trusted_keys("trusted_keys")   # one public key a line

The signed payload is the record a reviewer vouches for: the tool name, the version, the
file's SHA-256, the verdict ("approved"), the approver, the time and the digest of the
allow-list it was approved under, as canonical JSON behind a domain prefix. Whoever edits a
version file and its manifest together (the hash check alone cannot see that) cannot produce
a signature from a trusted key, so with trusted keys configured such a version is quarantined
(`unsigned` or `bad_signature`) instead of served.

A public key is written and read as `ed25519 <base64 of the 32 raw bytes> [comment]`; a bare
base64 key is accepted too. The private key file is PKCS#8 PEM, unencrypted, mode 0600.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from dyntools.errors import UsageError

SIGNING_KEY_ENV = "DYNTOOLS_SIGNING_KEY"
TRUSTED_KEYS_ENV = "DYNTOOLS_TRUSTED_KEYS"
DOMAIN = b"dyntools-approval-v1\n"
KEY_PREFIX = "ed25519"
MAX_KEY_FILE = 1 << 20

UNSIGNED = "unsigned"
BAD_SIGNATURE = "bad_signature"


def payload(name: str, version: int, sha256: str, verdict: str, approver: str, time: str,
            policy_digest: str) -> bytes:
    """The exact bytes a signature covers."""
    record = {"name": name, "version": version, "sha256": sha256, "verdict": verdict,
              "approver": approver, "time": time, "policy_digest": policy_digest}
    return DOMAIN + json.dumps(record, sort_keys=True, separators=(",", ":"),
                               ensure_ascii=True).encode("ascii")


# base64 (and binascii, struct) are imported where a key or a signature is read or made:
# this module is loaded by every registry, a cold `dyntools call`'s included, which has
# neither unless trusted keys are configured.


def public_key_text(raw: bytes) -> str:
    import base64

    return base64.b64encode(raw).decode("ascii")


class Signer(NamedTuple):
    """A loaded private key and the approver name it signs as."""

    private_key: Any  # cryptography's Ed25519PrivateKey
    public_key: str  # base64 of the raw public key
    path: str

    def sign(self, name: str, version: int, sha256: str, verdict: str, approver: str,
             time: str, policy_digest: str) -> dict[str, Any]:
        import base64

        data = payload(name, version, sha256, verdict, approver, time, policy_digest)
        signature = self.private_key.sign(data)
        return {"algorithm": "ed25519", "key": self.public_key, "approver": approver,
                "time": time, "verdict": verdict, "policy_digest": policy_digest,
                "value": base64.b64encode(signature).decode("ascii")}


def generate_keypair(path: str | os.PathLike[str]) -> tuple[Path, Path, str]:
    """Write a new key pair: `path` (private, 0600, never overwritten) and `path.pub`.
    Returns both paths and the public key text."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    private_path = Path(path)
    public_path = private_path.with_name(private_path.name + ".pub")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    raw = key.public_key().public_bytes(serialization.Encoding.Raw,
                                        serialization.PublicFormat.Raw)
    public = public_key_text(raw)
    for target in (private_path, public_path):
        if os.path.lexists(target):
            raise UsageError(f"{target} exists; refusing to overwrite a key")
    try:
        fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
        public_path.write_text(f"{KEY_PREFIX} {public} {private_path.name}\n", encoding="ascii")
    except OSError as exc:
        raise UsageError(f"cannot write the key pair at {private_path}: "
                         f"{exc.strerror or exc}") from None
    return private_path, public_path, public


def _read_small(path: str | os.PathLike[str], what: str) -> bytes:
    """A key file's bytes: a regular file (a FIFO, a device or a folder is refused, without
    waiting: dyntools/base/regular_files.py) of at most MAX_KEY_FILE bytes."""
    from dyntools.base.regular_files import read_regular

    try:
        data = read_regular(path, MAX_KEY_FILE + 1)
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_KEY_FILE:
        raise UsageError(f"{what} {path}: over {MAX_KEY_FILE} bytes, not a key file")
    return data


def load_signing_key(path: str | os.PathLike[str]) -> Signer:
    """The private key written by `generate_keypair`; UsageError naming the problem."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    data = _read_small(path, "signing key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"signing key {path}: not an unencrypted PEM private key "
                         f"({str(exc)[:120]})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise UsageError(f"signing key {path}: not an Ed25519 key")
    raw = key.public_key().public_bytes(serialization.Encoding.Raw,
                                        serialization.PublicFormat.Raw)
    return Signer(key, public_key_text(raw), str(path))


def parse_public_key(text: str) -> str | None:
    """`ed25519 <b64> [comment]` or `<b64> [comment]` -> the base64 key; None if not a key."""
    words = text.split()
    if words and words[0] == KEY_PREFIX:
        words = words[1:]
    if not words:
        return None
    import base64
    import binascii

    try:
        raw = base64.b64decode(words[0], validate=True)
    except (binascii.Error, ValueError):
        return None
    return public_key_text(raw) if len(raw) == 32 else None


def load_trusted_keys(path: str | os.PathLike[str]) -> frozenset[str]:
    """One public key a line (blank lines and `#` comments skipped); UsageError on a line
    that is not a key, or a file with none (trusting nothing would refuse every version
    without saying why)."""
    text = _read_small(path, "trusted keys").decode("utf-8", "replace")
    keys: set[str] = set()
    for number, raw_line in enumerate(text.splitlines(), 1):
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        key = parse_public_key(line)
        if key is None:
            raise UsageError(f"trusted keys {path}, line {number}: not an Ed25519 public key "
                             "(expected `ed25519 <base64>`)")
        keys.add(key)
    if not keys:
        raise UsageError(f"trusted keys {path}: no key in the file")
    return frozenset(keys)


def check_signature(name: str, version: int, sha256: str, verdict: str, policy_digest: str,
                    signature: Mapping[str, Any] | None,
                    trusted: frozenset[str]) -> tuple[str, str] | None:
    """None when `signature` is a valid signature of this record by a trusted key; else
    (reason code, reason)."""
    import base64
    import binascii

    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    if signature is None:
        return UNSIGNED, (f"no trusted signature: v{version} carries no signature, and trusted "
                          "keys are configured")
    key = signature.get("key")
    approver, time, value = (signature.get("approver"), signature.get("time"),
                             signature.get("value"))
    if not all(isinstance(v, str) for v in (key, approver, time, value)):
        return BAD_SIGNATURE, f"v{version}: the signature record is malformed"
    assert isinstance(key, str) and isinstance(value, str)
    if key not in trusted:
        return BAD_SIGNATURE, (f"no trusted signature: v{version} is signed by a key that is not "
                               f"trusted ({key[:12]}...)")
    try:
        public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key, validate=True))
        public.verify(base64.b64decode(value, validate=True),
                      payload(name, version, sha256, verdict, str(approver), str(time),
                              policy_digest))
    except (InvalidSignature, ValueError, binascii.Error):
        return BAD_SIGNATURE, (f"v{version}: the signature does not match the version record "
                               "(the file, its hash, its verdict or its approver changed)")
    return None
