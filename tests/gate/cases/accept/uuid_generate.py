"""Generates and validates UUIDs."""
import uuid

NAME = "uuid_generate"
DESCRIPTION = "Generates random (v4) or name-based (v5) UUIDs, or validates and normalises a UUID string."
PARAMS = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1},
        "name": {"type": "string", "description": "make a deterministic v5 UUID in the URL namespace"},
        "validate": {"type": "string"},
    },
}
EXAMPLES = [
    {"params": {"name": "https://example.com"}, "result": {"uuids": ["4fd35a71-71ef-5a55-a9d9-aa75c889a6d0"], "version": 5}},
    {"params": {"validate": "{12345678-1234-4678-9234-567812345678}"}, "result": {"valid": True, "uuid": "12345678-1234-4678-9234-567812345678", "version": 4}},
    {"params": {"validate": "not-a-uuid"}, "result": {"valid": False}},
]


def run(params):
    if "validate" in params:
        try:
            parsed = uuid.UUID(params["validate"])
        except ValueError:
            return {"valid": False}
        return {"valid": True, "uuid": str(parsed), "version": parsed.version}
    if "name" in params:
        return {"uuids": [str(uuid.uuid5(uuid.NAMESPACE_URL, params["name"]))], "version": 5}
    return {"uuids": [str(uuid.uuid4()) for _ in range(params.get("count", 1))], "version": 4}
