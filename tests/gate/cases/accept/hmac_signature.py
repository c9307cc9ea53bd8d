"""Signs a webhook payload with HMAC and verifies a received signature in constant time."""
import hashlib
import hmac
import json

NAME = "hmac_signature"
DESCRIPTION = "Computes an HMAC signature of a payload (canonical JSON or raw text) and optionally verifies a given signature."
PARAMS = {
    "type": "object",
    "properties": {
        "secret": {"type": "string", "minLength": 1},
        "payload": {"description": "a string is signed as-is, anything else as canonical JSON"},
        "algorithm": {"type": "string", "enum": ["sha1", "sha256", "sha512"], "default": "sha256"},
        "signature": {"type": "string", "description": "hex signature to verify"},
    },
    "required": ["secret", "payload"],
}
EXAMPLES = [
    {
        "params": {"secret": "key", "payload": "The quick brown fox jumps over the lazy dog"},
        "result": {
            "algorithm": "sha256",
            "signature": "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
        },
    },
    {
        "params": {
            "secret": "key",
            "payload": "The quick brown fox jumps over the lazy dog",
            "algorithm": "sha1",
            "signature": "DE7C9B85B8B78AA6BC8A7A36F70A90701C9DB4D9",
        },
        "result": {"algorithm": "sha1", "signature": "de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9", "valid": True},
    },
    {
        "params": {"secret": "s3cret", "payload": {"b": 2, "a": 1}, "signature": "00"},
        "result": {
            "algorithm": "sha256",
            "signature": "3c3a50a5327d4ff99220ba594fc5a91164aee080a9bd5232d852100c083279d3",
            "valid": False,
        },
    },
]


def canonical_bytes(payload: object) -> bytes:
    if isinstance(payload, str):
        return payload.encode("utf-8")
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def run(params):
    algorithm = params.get("algorithm", "sha256")
    digest = hmac.new(params["secret"].encode("utf-8"), canonical_bytes(params["payload"]), algorithm).hexdigest()
    result = {"algorithm": algorithm, "signature": digest}
    if "signature" in params:
        result["valid"] = hmac.compare_digest(digest, params["signature"].strip().lower())
    return result
