"""Checksums and compression ratio of text."""
import zlib

NAME = "crc32_checksum"
DESCRIPTION = "CRC-32 and Adler-32 checksums of UTF-8 text, and how well it compresses with zlib."
PARAMS = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "level": {"type": "integer", "minimum": 0, "maximum": 9, "default": 6}},
    "required": ["text"],
}
EXAMPLES = [
    {
        "params": {"text": "The quick brown fox jumps over the lazy dog"},
        "result": {"crc32": "414fa339", "adler32": "5bdc0fda", "bytes": 43, "compressed_bytes": 50, "ratio": 1.163},
    },
    {"params": {"text": ""}, "result": {"crc32": "00000000", "adler32": "00000001", "bytes": 0, "compressed_bytes": 8, "ratio": None}},
]


def run(params):
    data = params["text"].encode("utf-8")
    compressed = zlib.compress(data, params.get("level", 6))
    return {
        "crc32": f"{zlib.crc32(data):08x}",
        "adler32": f"{zlib.adler32(data):08x}",
        "bytes": len(data),
        "compressed_bytes": len(compressed),
        "ratio": round(len(compressed) / len(data), 3) if data else None,
    }
