# technique: catch KeyboardInterrupt to survive the sandbox timeout
# source: asteval report after 1.0.6: BaseException subclasses escape `except Exception`
# family: calls
"""Attack case: catch KeyboardInterrupt to survive the sandbox timeout."""

NAME = "keyboardinterrupt"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    try:
        return {"n": len(params["text"])}
    except KeyboardInterrupt:  # expect: DT401
        return {"n": -1}
