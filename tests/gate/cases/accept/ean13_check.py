"""Validates EAN-13 / UPC-A barcodes and computes missing check digits."""
NAME = "ean13_check"
DESCRIPTION = "Validates EAN-13 and UPC-A barcodes, or computes the check digit for a 12-digit EAN or 11-digit UPC body."
PARAMS = {
    "type": "object",
    "properties": {"codes": {"type": "array", "items": {"type": "string"}, "maxItems": 1000}},
    "required": ["codes"],
}
EXAMPLES = [
    {
        "params": {"codes": ["4006381333931", "4006381333932", "400638133393", "036000291452", "03600029145", "12-34"]},
        "result": {
            "results": [
                {"code": "4006381333931", "kind": "EAN-13", "valid": True},
                {"code": "4006381333932", "kind": "EAN-13", "valid": False, "expected_check_digit": 1},
                {"code": "400638133393", "kind": "EAN-13 body", "check_digit": 1, "full": "4006381333931"},
                {"code": "036000291452", "kind": "UPC-A", "valid": True},
                {"code": "03600029145", "kind": "UPC-A body", "check_digit": 2, "full": "036000291452"},
                {"code": "12-34", "error": "use 11, 12 or 13 digits"},
            ]
        },
    }
]


def check_digit(body: str) -> int:
    """GS1 mod-10: weights 3 and 1 alternate, starting with 3 at the rightmost body digit."""
    total = sum(int(digit) * (3 if position % 2 == 0 else 1) for position, digit in enumerate(reversed(body)))
    return (10 - total % 10) % 10


def describe(raw: str) -> dict:
    code = raw.replace(" ", "")
    if not code.isdigit() or len(code) not in (11, 12, 13):
        return {"code": raw, "error": "use 11, 12 or 13 digits"}
    if len(code) == 13:
        expected = check_digit(code[:-1])
        result = {"code": raw, "kind": "EAN-13", "valid": expected == int(code[-1])}
    elif len(code) == 11:
        digit = check_digit(code)
        return {"code": raw, "kind": "UPC-A body", "check_digit": digit, "full": f"{code}{digit}"}
    elif check_digit(code[:-1]) == int(code[-1]):
        return {"code": raw, "kind": "UPC-A", "valid": True}
    else:
        digit = check_digit(code)
        return {"code": raw, "kind": "EAN-13 body", "check_digit": digit, "full": f"{code}{digit}"}
    if not result["valid"]:
        result["expected_check_digit"] = expected
    return result


def run(params):
    return {"results": [describe(code) for code in params["codes"]]}
