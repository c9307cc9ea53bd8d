"""JSON text as `json.dumps` writes it and `json.loads` reads it, without the json package.

    text = dumps(value, sort_keys=True, allow_nan=False)   # json.dumps(value, ...)
    value = loads(text)                                     # json.loads(text), for a str

`import json` imports `re` and compiles five patterns on the way (json.decoder, json.scanner,
json.encoder): ~3 ms of a `dyntools check` that needs no regular expression otherwise
(docs/gate.md). Both functions leave the work to `_json`, the C module the json package uses
for it: `dumps` makes json's one-shot C encoder as `json.dumps` does whenever `indent` is
None (default separators, a fresh circular-reference check per document), and `loads` runs
json's C scanner with json's default decoder settings, JSON whitespace allowed around the
document and nothing after it. An error is the json package's own: its JSONDecodeError (json
is imported to raise one), TypeError, ValueError or RecursionError. tests/test_jsontext.py
holds both to the json package. Where `_json` is missing (another Python) or does not take
these arguments, the json package does the work.

A leaf (it imports nothing from dyntools): the gate may import it (docs/architecture.md).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a check never imports typing (docs/gate.md)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

_WHITESPACE = " \t\n\r"  # json.decoder's WHITESPACE
_SCANNER: list[Callable[[str, int], tuple[Any, int]]] = []


def _not_serializable(value: object) -> Any:
    """json.JSONEncoder.default: the same TypeError."""
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(value: Any, *, sort_keys: bool = False, ensure_ascii: bool = True,
          allow_nan: bool = True) -> str:
    """`json.dumps(value, sort_keys=..., ensure_ascii=..., allow_nan=...)`."""
    try:
        import _json

        strings = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
        if isinstance(value, str):  # as json.JSONEncoder.encode
            return str(strings(value))
        # json.encoder.JSONEncoder.iterencode's call: markers (a fresh dict: the check for
        # circular references), default, the string encoder, indent, the key and item
        # separators, sort_keys, skipkeys, allow_nan.
        encoder = _json.make_encoder({}, _not_serializable, strings, None, ": ", ", ",
                                     sort_keys, False, allow_nan)
    except (ImportError, AttributeError, TypeError):  # no _json, or another signature
        import json

        return json.dumps(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii,
                          allow_nan=allow_nan)
    return "".join(encoder(value, 0))


class _DecoderSettings:
    """What json's C scanner reads from a json.JSONDecoder: the default decoder's values."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]


def loads(text: str) -> Any:
    """`json.loads(text)` for a str."""
    if not _SCANNER:
        try:
            import _json

            settings: Any = _DecoderSettings()  # read as a json.JSONDecoder is
            _SCANNER.append(_json.make_scanner(settings))
        except (ImportError, AttributeError, TypeError):
            import json

            return json.loads(text)
    if not isinstance(text, str) or text.startswith("\ufeff"):
        import json

        return json.loads(text)  # its TypeError, or its error for a BOM
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _SCANNER[0](text, start)
    except StopIteration as stop:
        _refuse("Expecting value", text, stop.value)
    end = len(text) - len(text[end:].lstrip(_WHITESPACE))
    if end != len(text):
        _refuse("Extra data", text, end)
    return value


def _refuse(message: str, text: str, position: int) -> NoReturn:
    from json import JSONDecodeError

    raise JSONDecodeError(message, text, position) from None
