"""Numbers items with a module-level counter reset per call (a `global` statement)."""

NAME = "id_counter"
DESCRIPTION = "Gives each item a sequential id starting at a chosen number, and reports the next free id."
PARAMS = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": {"type": "string"}}, "start": {"type": "integer", "default": 1}},
    "required": ["items"],
}
EXAMPLES = [
    {"params": {"items": ["a", "b", "c"]}, "result": {"ids": {"a": 1, "b": 2, "c": 3}, "next": 4}},
    {"params": {"items": ["x"], "start": 10}, "result": {"ids": {"x": 10}, "next": 11}},
]

counter = 0


def next_id() -> int:
    global counter
    counter += 1
    return counter


def run(params):
    global counter
    counter = params.get("start", 1) - 1
    ids = {item: next_id() for item in params["items"]}
    return {"ids": ids, "next": counter + 1}
