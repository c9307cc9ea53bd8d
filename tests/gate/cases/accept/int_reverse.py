"""Reverses the digits of a 32-bit integer (a classic exercise) with private constants."""

NAME = "int_reverse"
DESCRIPTION = "Reverses the decimal digits of a signed 32-bit integer; 0 when the result overflows 32 bits."
PARAMS = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
EXAMPLES = [
    {"params": {"x": 123}, "result": {"reversed": 321}},
    {"params": {"x": -120}, "result": {"reversed": -21}},
    {"params": {"x": 1534236469}, "result": {"reversed": 0}},
]

_INT_MAX = 2147483647
_INT_MIN = -2147483648


def run(params):
    x = params["x"]
    sign = -1 if x < 0 else 1
    value = sign * int(str(abs(x))[::-1])
    if value < _INT_MIN or value > _INT_MAX:
        return {"reversed": 0}
    return {"reversed": value}
