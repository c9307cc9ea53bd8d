"""Validates numbers with the Luhn checksum."""

NAME = "luhn_check"
DESCRIPTION = "Checks a card or identifier number with the Luhn algorithm and reports the check digit it should end with."
PARAMS = {
    "type": "object",
    "properties": {"number": {"type": "string", "description": "digits; spaces and dashes are ignored"}},
    "required": ["number"],
}
EXAMPLES = [
    {"params": {"number": "4539 1488 0343 6467"}, "result": {"valid": True, "check_digit": 7}},
    {"params": {"number": "79927398710"}, "result": {"valid": False, "check_digit": 3}},
    {"params": {"number": "12a4"}, "result": {"error": "only digits, spaces and dashes are allowed"}},
]


def checksum(digits: list[int]) -> int:
    total = 0
    for position, digit in enumerate(reversed(digits)):
        if position % 2 == 1:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10


def run(params):
    cleaned = params["number"].replace(" ", "").replace("-", "")
    if not cleaned.isdigit():
        return {"error": "only digits, spaces and dashes are allowed"}
    digits = [int(ch) for ch in cleaned]
    # The last digit is the check digit: recompute it from the payload in front of it.
    expected = (10 - checksum(digits[:-1] + [0])) % 10
    return {"valid": checksum(digits) == 0, "check_digit": expected}
