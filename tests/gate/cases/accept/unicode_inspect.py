"""Describes each character of a string: code point, Unicode name, category and UTF-8 bytes."""
import unicodedata

NAME = "unicode_inspect"
DESCRIPTION = "Lists each character of a string with its code point, Unicode name, category and UTF-8 bytes, and flags invisible characters."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "maxLength": 500},
        "normalize": {"type": "string", "enum": ["NFC", "NFD", "NFKC", "NFKD"]},
    },
    "required": ["text"],
}
EXAMPLES = [
    {
        "params": {"text": "é①"},
        "result": {
            "length": 2,
            "characters": [
                {"char": "é", "code_point": "U+00E9", "name": "LATIN SMALL LETTER E WITH ACUTE", "category": "Ll", "utf8": "c3 a9"},
                {"char": "①", "code_point": "U+2460", "name": "CIRCLED DIGIT ONE", "category": "No", "utf8": "e2 91 a0"},
            ],
            "invisible": [],
        },
    },
    {
        "params": {"text": "ﬁ", "normalize": "NFKC"},
        "result": {
            "length": 2,
            "characters": [
                {"char": "f", "code_point": "U+0066", "name": "LATIN SMALL LETTER F", "category": "Ll", "utf8": "66"},
                {"char": "i", "code_point": "U+0069", "name": "LATIN SMALL LETTER I", "category": "Ll", "utf8": "69"},
            ],
            "invisible": [],
        },
    },
]

INVISIBLE_CATEGORIES = ["Cf", "Cc", "Zl", "Zp"]


def describe(char: str) -> dict[str, str]:
    return {
        "char": char,
        "code_point": f"U+{ord(char):04X}",
        "name": unicodedata.name(char, "<unnamed>"),
        "category": unicodedata.category(char),
        "utf8": char.encode("utf-8").hex(" "),
    }


def run(params):
    text = params["text"]
    if form := params.get("normalize"):
        text = unicodedata.normalize(form, text)
    characters = [describe(char) for char in text]
    invisible = [entry["code_point"] for entry in characters if entry["category"] in INVISIBLE_CATEGORIES]
    return {"length": len(text), "characters": characters, "invisible": invisible}
