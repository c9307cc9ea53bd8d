"""Compresses text with zlib and reports the ratio, with a base64 form for transport."""
import base64
import binascii
import zlib

NAME = "compress_ratio"
DESCRIPTION = "Compresses text with zlib (returning base64 and the compression ratio) or decompresses such base64 back to text."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "data": {"type": "string", "description": "base64 of zlib data, to decompress"},
        "level": {"type": "integer", "minimum": 0, "maximum": 9, "default": 9},
    },
}
EXAMPLES = [
    {
        "params": {"text": "abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc", "level": 9},
        "result": {"original_bytes": 60, "compressed_bytes": 14, "ratio": 0.233, "data": "eNpLTEpOJBcBALy+Fvk=", "crc32": 3784440365},
    },
    {"params": {"data": "eNpLTEpOJBcBALy+Fvk="}, "result": {"text": "abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc", "bytes": 60}},
    {"params": {"data": "not base64!"}, "result": {"error": "data is not valid base64-encoded zlib data"}},
    {"params": {}, "result": {"error": "give text to compress or data to decompress"}},
]


def run(params):
    if "data" in params:
        try:
            raw = zlib.decompress(base64.b64decode(params["data"], validate=True))
        except (binascii.Error, zlib.error, ValueError):
            return {"error": "data is not valid base64-encoded zlib data"}
        return {"text": raw.decode("utf-8", errors="replace"), "bytes": len(raw)}
    if "text" not in params:
        return {"error": "give text to compress or data to decompress"}
    raw = params["text"].encode("utf-8")
    packed = zlib.compress(raw, params.get("level", 9))
    return {
        "original_bytes": len(raw),
        "compressed_bytes": len(packed),
        "ratio": round(len(packed) / len(raw), 3) if raw else 0.0,
        "data": base64.b64encode(packed).decode("ascii"),
        "crc32": zlib.crc32(raw),
    }
