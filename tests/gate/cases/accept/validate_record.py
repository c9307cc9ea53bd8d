"""Validates a record against simple field rules."""
from typing import Any, Callable

NAME = "validate_record"
DESCRIPTION = "Checks a record against rules (required, type, min/max, one-of) and lists every violation."
PARAMS = {
    "type": "object",
    "properties": {
        "record": {"type": "object"},
        "rules": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "required": {"type": "boolean"},
                    "type": {"enum": ["string", "number", "integer", "boolean"]},
                    "min": {"type": "number"},
                    "max": {"type": "number"},
                    "one_of": {"type": "array"},
                },
            },
        },
    },
    "required": ["record", "rules"],
}
EXAMPLES = [
    {
        "params": {
            "record": {"name": "", "age": 17, "plan": "gold", "score": 1.5},
            "rules": {
                "name": {"required": True, "type": "string", "min": 1},
                "age": {"type": "integer", "min": 18},
                "plan": {"one_of": ["free", "pro"]},
                "email": {"required": True},
                "score": {"type": "integer"},
            },
        },
        "result": {
            "valid": False,
            "errors": [
                "age: must be at least 18",
                "email: is required",
                "name: must be at least 1 long",
                "plan: must be one of free, pro",
                "score: must be of type integer",
            ],
        },
    },
    {"params": {"record": {"x": 1}, "rules": {"x": {"type": "number", "max": 5}}}, "result": {"valid": True, "errors": []}},
]

TYPE_CHECKS: dict = {
    "string": "str",
    "number": "number",
    "integer": "int",
    "boolean": "bool",
}


def type_check(kind: str) -> Callable[[Any], bool]:
    checks = {
        "str": lambda v: isinstance(v, str),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "bool": lambda v: isinstance(v, bool),
    }
    return checks[TYPE_CHECKS[kind]]


def field_errors(value: Any, rule: dict, *, present: bool) -> list[str]:
    if not present:
        return ["is required"] if rule.get("required") else []
    if "type" in rule and not type_check(rule["type"])(value):
        return [f"must be of type {rule['type']}"]
    errors = []
    size = len(value) if isinstance(value, str) else value
    unit = " long" if isinstance(value, str) else ""
    if "min" in rule and isinstance(size, int | float) and size < rule["min"]:
        errors.append(f"must be at least {rule['min']}{unit}")
    if "max" in rule and isinstance(size, int | float) and size > rule["max"]:
        errors.append(f"must be at most {rule['max']}{unit}")
    if "one_of" in rule and value not in rule["one_of"]:
        errors.append("must be one of " + ", ".join(str(option) for option in rule["one_of"]))
    return errors


def run(params):
    record = params["record"]
    errors = [
        f"{field}: {message}"
        for field, rule in sorted(params["rules"].items())
        for message in field_errors(record.get(field), rule, present=field in record)
    ]
    return {"valid": not errors, "errors": errors}
