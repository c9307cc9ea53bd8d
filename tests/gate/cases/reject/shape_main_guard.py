# technique: the habitual `if __name__ == "__main__":` block runs code at import
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a main guard, as models often append."""

NAME = "main_guard"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"text": params["text"]}


if __name__ == "__main__":  # expect: DT101 DT301
    print(run({"text": "demo"}))
