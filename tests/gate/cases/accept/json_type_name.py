"""Names the JSON type of each value with exact type comparisons."""

NAME = "json_type_name"
DESCRIPTION = "Names the JSON type of each value in a list (integer and number told apart, booleans not counted as numbers)."
PARAMS = {"type": "object", "properties": {"values": {"type": "array"}}, "required": ["values"]}
EXAMPLES = [
    {"params": {"values": [1, 2.5, True, "x", None, [1], {"a": 1}]},
     "result": {"types": ["integer", "number", "boolean", "string", "null", "array", "object"]}},
]


def name_of(value) -> str:
    if type(value) == bool:
        return "boolean"
    if type(value) is int:
        return "integer"
    if type(value) in (float,):
        return "number"
    if type(value) == str:
        return "string"
    if value is None:
        return "null"
    if type(value) in (list, tuple):
        return "array"
    if type(value) != dict:
        return "other"
    return "object"


def run(params):
    return {"types": [name_of(v) for v in params["values"]]}
