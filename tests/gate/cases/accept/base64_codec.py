"""Encodes and decodes Base64 (standard or URL-safe)."""
import base64
import binascii

NAME = "base64_codec"
DESCRIPTION = "Base64-encodes UTF-8 text or decodes Base64 back to text; standard or URL-safe alphabet."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "mode": {"enum": ["encode", "decode"]},
        "url_safe": {"type": "boolean", "default": False},
    },
    "required": ["text", "mode"],
}
EXAMPLES = [
    {"params": {"text": "hello?", "mode": "encode"}, "result": {"output": "aGVsbG8/"}},
    {"params": {"text": "hello?", "mode": "encode", "url_safe": True}, "result": {"output": "aGVsbG8_"}},
    {"params": {"text": "aGVsbG8", "mode": "decode"}, "result": {"output": "hello"}},
    {"params": {"text": "@@@", "mode": "decode"}, "result": {"error": "not valid Base64"}},
]


def pad(text: str) -> str:
    """Accept input whose trailing '=' padding was stripped, as URLs often do."""
    return text + "=" * (-len(text) % 4)


def run(params):
    url_safe = params.get("url_safe", False)
    if params["mode"] == "encode":
        raw = params["text"].encode("utf-8")
        encoded = base64.urlsafe_b64encode(raw) if url_safe else base64.b64encode(raw)
        return {"output": encoded.decode("ascii")}
    try:
        data = pad(params["text"].strip())
        decoded = base64.urlsafe_b64decode(data) if url_safe else base64.b64decode(data, validate=True)
        return {"output": decoded.decode("utf-8")}
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return {"error": "not valid Base64"}
