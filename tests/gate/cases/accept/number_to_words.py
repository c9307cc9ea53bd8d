"""Spells out integers in English."""

NAME = "number_to_words"
DESCRIPTION = "Spells out an integer in English words (up to the trillions), e.g. for cheques."
PARAMS = {
    "type": "object",
    "properties": {"number": {"type": "integer", "minimum": -999999999999999, "maximum": 999999999999999}},
    "required": ["number"],
}
EXAMPLES = [
    {"params": {"number": 0}, "result": {"words": "zero"}},
    {"params": {"number": 1234567}, "result": {"words": "one million two hundred thirty-four thousand five hundred sixty-seven"}},
    {"params": {"number": -40}, "result": {"words": "minus forty"}},
]

ONES = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
SCALES = ["", "thousand", "million", "billion", "trillion"]


def below_thousand(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    words = [f"{ONES[hundreds]} hundred"] if hundreds else []
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(TENS[tens] + (f"-{ONES[ones]}" if ones else ""))
    elif rest:
        words.append(ONES[rest])
    return " ".join(words)


def run(params):
    number = params["number"]
    if number == 0:
        return {"words": "zero"}
    groups = []
    remaining = abs(number)
    for scale in SCALES:
        remaining, chunk = divmod(remaining, 1000)
        if chunk:
            groups.append(f"{below_thousand(chunk)} {scale}".strip())
        if not remaining:
            break
    words = " ".join(reversed(groups))
    return {"words": f"minus {words}" if number < 0 else words}
