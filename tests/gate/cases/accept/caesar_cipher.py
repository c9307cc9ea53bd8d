"""Caesar shift and ROT13."""
import string

NAME = "caesar_cipher"
DESCRIPTION = "Shifts letters by N places (ROT13 when N is 13); decode with a negative shift. Other characters pass through."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "shift": {"type": "integer", "default": 13},
    },
    "required": ["text"],
}
EXAMPLES = [
    {"params": {"text": "Hello, World!"}, "result": {"text": "Uryyb, Jbeyq!"}},
    {"params": {"text": "abc xyz", "shift": 3}, "result": {"text": "def abc"}},
    {"params": {"text": "def abc", "shift": -3}, "result": {"text": "abc xyz"}},
]


def rotate(alphabet: str, shift: int) -> str:
    shift %= len(alphabet)
    return alphabet[shift:] + alphabet[:shift]


def run(params):
    shift = params.get("shift", 13)
    lower, upper = string.ascii_lowercase, string.ascii_uppercase
    table = str.maketrans(lower + upper, rotate(lower, shift) + rotate(upper, shift))
    return {"text": params["text"].translate(table)}
