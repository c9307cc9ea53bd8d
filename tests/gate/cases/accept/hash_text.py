"""Hashes text with a chosen algorithm, optionally as an HMAC."""
import hashlib
import hmac

NAME = "hash_text"
DESCRIPTION = "Hex digest of UTF-8 text with md5, sha1, sha256 or sha512; HMAC when a key is given."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "algorithm": {"enum": ["md5", "sha1", "sha256", "sha512"], "default": "sha256"},
        "key": {"type": "string"},
    },
    "required": ["text"],
}
EXAMPLES = [
    {
        "params": {"text": "abc"},
        "result": {"algorithm": "sha256", "hex": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    },
    {"params": {"text": "abc", "algorithm": "md5"}, "result": {"algorithm": "md5", "hex": "900150983cd24fb0d6963f7d28e17f72"}},
    {
        "params": {"text": "The quick brown fox jumps over the lazy dog", "algorithm": "md5", "key": "key"},
        "result": {"algorithm": "hmac-md5", "hex": "80070713463e7749b90c2dc24911e275"},
    },
]


def run(params):
    algorithm = params.get("algorithm", "sha256")
    data = params["text"].encode("utf-8")
    if "key" in params:
        digest = hmac.new(params["key"].encode("utf-8"), data, algorithm).hexdigest()
        return {"algorithm": f"hmac-{algorithm}", "hex": digest}
    return {"algorithm": algorithm, "hex": hashlib.new(algorithm, data).hexdigest()}
