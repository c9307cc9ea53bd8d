"""Builds a small Bloom filter from a list of words and tests candidates against it."""
import hashlib

NAME = "bloom_filter_check"
DESCRIPTION = "Builds a Bloom filter from known words and reports which candidates are possibly present or definitely absent."
PARAMS = {
    "type": "object",
    "properties": {
        "known": {"type": "array", "items": {"type": "string"}},
        "candidates": {"type": "array", "items": {"type": "string"}},
        "bits": {"type": "integer", "minimum": 8, "maximum": 65536, "default": 1024},
        "hashes": {"type": "integer", "minimum": 1, "maximum": 16, "default": 3},
    },
    "required": ["known", "candidates"],
}
EXAMPLES = [
    {
        "params": {"known": ["apple", "banana", "cherry"], "candidates": ["banana", "durian", "apple"]},
        "result": {
            "results": {"banana": "possibly present", "durian": "definitely absent", "apple": "possibly present"},
            "bits_set": 9,
            "fill_ratio": 0.0088,
        },
    },
    {
        "params": {"known": [], "candidates": ["x"], "bits": 8, "hashes": 1},
        "result": {"results": {"x": "definitely absent"}, "bits_set": 0, "fill_ratio": 0.0},
    },
]


def positions(word: str, bits: int, hashes: int) -> list[int]:
    """Double hashing: h1 + i*h2 from the two halves of one SHA-256 digest."""
    digest = hashlib.sha256(word.encode("utf-8")).digest()
    first = int.from_bytes(digest[:8], "big")
    second = int.from_bytes(digest[8:16], "big") | 1
    return [(first + i * second) % bits for i in range(hashes)]


def run(params):
    bits = params.get("bits", 1024)
    hashes = params.get("hashes", 3)
    field = bytearray(bits)
    for word in params["known"]:
        for index in positions(word, bits, hashes):
            field[index] = 1
    results = {
        word: "possibly present" if all(field[i] for i in positions(word, bits, hashes)) else "definitely absent"
        for word in params["candidates"]
    }
    bits_set = sum(field)
    return {"results": results, "bits_set": bits_set, "fill_ratio": round(bits_set / bits, 4)}
