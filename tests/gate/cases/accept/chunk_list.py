"""Splits a list into chunks or sliding windows."""
from itertools import islice

NAME = "chunk_list"
DESCRIPTION = "Splits a list into consecutive chunks of a size, or into N nearly equal parts."
PARAMS = {
    "type": "object",
    "properties": {
        "items": {"type": "array"},
        "size": {"type": "integer", "minimum": 1},
        "parts": {"type": "integer", "minimum": 1},
    },
    "required": ["items"],
    "oneOf": [{"required": ["size"]}, {"required": ["parts"]}],
}
EXAMPLES = [
    {"params": {"items": [1, 2, 3, 4, 5, 6, 7], "size": 3}, "result": {"chunks": [[1, 2, 3], [4, 5, 6], [7]]}},
    {"params": {"items": ["a", "b", "c", "d", "e"], "parts": 3}, "result": {"chunks": [["a", "b"], ["c", "d"], ["e"]]}},
]


def by_size(items: list, size: int) -> list[list]:
    iterator = iter(items)
    chunks = []
    while chunk := list(islice(iterator, size)):
        chunks.append(chunk)
    return chunks


def by_parts(items: list, parts: int) -> list[list]:
    quotient, remainder = divmod(len(items), parts)
    chunks, start = [], 0
    for index in range(parts):
        end = start + quotient + (1 if index < remainder else 0)
        chunks.append(items[start:end])
        start = end
    return chunks


def run(params):
    if "size" in params:
        return {"chunks": by_size(params["items"], params["size"])}
    return {"chunks": by_parts(params["items"], params["parts"])}
