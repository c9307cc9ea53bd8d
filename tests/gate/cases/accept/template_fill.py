"""Fills $placeholders in a text template."""
from string import Template
from typing import Dict, List

NAME = "template_fill"
DESCRIPTION = "Substitutes $name / ${name} placeholders in a template; reports placeholders left unfilled."
PARAMS = {
    "type": "object",
    "properties": {
        "template": {"type": "string"},
        "values": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
        "strict": {"type": "boolean", "default": False},
    },
    "required": ["template", "values"],
}
EXAMPLES = [
    {
        "params": {"template": "Dear $name, your order ${order}X ships on $date.", "values": {"name": "Ada", "order": 42}},
        "result": {"text": "Dear Ada, your order 42X ships on $date.", "missing": ["date"]},
    },
    {
        "params": {"template": "Hi $who", "values": {}, "strict": True},
        "result": {"error": "missing value for placeholder 'who'"},
    },
    {"params": {"template": "Cost: $$5", "values": {}}, "result": {"text": "Cost: $5", "missing": []}},
]


def placeholders(template: Template) -> List[str]:
    return list(dict.fromkeys(template.get_identifiers()))


def run(params):
    template = Template(params["template"])
    values: Dict[str, str] = {key: str(value) for key, value in params["values"].items()}
    if params.get("strict"):
        try:
            return {"text": template.substitute(values), "missing": []}
        except KeyError as exc:
            return {"error": f"missing value for placeholder {exc.args[0]!r}"}
    missing = [name for name in placeholders(template) if name not in values]
    return {"text": template.safe_substitute(values), "missing": missing}
