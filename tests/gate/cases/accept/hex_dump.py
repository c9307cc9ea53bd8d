"""Hex dump of text or hex input, like xxd."""
import binascii

NAME = "hex_dump"
DESCRIPTION = "Shows UTF-8 text (or hex input) as an xxd-style hex dump with offsets and printable ASCII."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "hex": {"type": "string"},
        "width": {"type": "integer", "minimum": 1, "maximum": 32, "default": 8},
    },
}
EXAMPLES = [
    {
        "params": {"text": "Hi, \u00e9t\u00e9!", "width": 8},
        "result": {"lines": ["00000000: 4869 2c20 c3a9 74c3  Hi, ..t.", "00000008: a921                 .!"], "bytes": 10},
    },
    {"params": {"hex": "zz"}, "result": {"error": "hex input is not valid"}},
]


def printable(chunk: bytes) -> str:
    return "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)


def run(params):
    if "hex" in params:
        try:
            data = bytes.fromhex(params["hex"])
        except ValueError:
            return {"error": "hex input is not valid"}
    else:
        data = params.get("text", "").encode("utf-8")
    width = params.get("width", 8)
    lines, offset = [], 0
    while chunk := data[offset : offset + width]:
        digits = binascii.hexlify(chunk).decode("ascii")
        groups = " ".join(digits[i : i + 4] for i in range(0, len(digits), 4))
        lines.append("%08x: %-*s  %s" % (offset, width * 2 + (width - 1) // 2, groups, printable(chunk)))
        offset += width
    return {"lines": lines, "bytes": len(data)}
