"""A safe arithmetic calculator (shunting-yard, no eval)."""
import math
import operator
import re

NAME = "expression_calculator"
DESCRIPTION = "Evaluates an arithmetic expression with + - * / ^ %, parentheses and sqrt/abs, without eval."
PARAMS = {
    "type": "object",
    "properties": {"expression": {"type": "string", "maxLength": 500}},
    "required": ["expression"],
}
EXAMPLES = [
    {"params": {"expression": "2 + 3 * (4 - 1) ^ 2"}, "result": {"value": 29}},
    {"params": {"expression": "sqrt(16) / 8 + abs(-1.5)"}, "result": {"value": 2.0}},
    {"params": {"expression": "-3 + 10 % 4"}, "result": {"value": -1}},
    {"params": {"expression": "1 / 0"}, "result": {"error": "division by zero"}},
    {"params": {"expression": "2 +"}, "result": {"error": "incomplete expression"}},
]

TOKEN = r"\s*(?:(\d+\.?\d*)|([A-Za-z]+)|(.))"
PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2, "^": 3, "neg": 4}
RIGHT_ASSOCIATIVE = {"^", "neg"}


def operators() -> dict:
    # Built per call: a top-level dict of functions would not be a literal.
    return {
        "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "%": operator.mod, "^": operator.pow, "neg": operator.neg, "sqrt": math.sqrt, "abs": abs,
    }


def tokens(text: str):
    previous = None
    for number, word, symbol in re.findall(TOKEN, text):
        if number:
            token = float(number) if "." in number else int(number)
        elif word:
            token = word.lower()
        else:
            token = symbol
        if token == "-" and (previous is None or previous in PRECEDENCE or previous == "("):
            token = "neg"
        yield token
        previous = token


def to_postfix(text: str) -> list:
    output, stack = [], []
    for token in tokens(text):
        if isinstance(token, int | float):
            output.append(token)
        elif token in ("sqrt", "abs", "("):
            stack.append(token)
        elif token == ")":
            while stack and stack[-1] != "(":
                output.append(stack.pop())
            if not stack:
                raise ValueError("unbalanced parentheses")
            stack.pop()
            if stack and stack[-1] in ("sqrt", "abs"):
                output.append(stack.pop())
        elif token in PRECEDENCE:
            while stack and stack[-1] in PRECEDENCE and (
                PRECEDENCE[stack[-1]] > PRECEDENCE[token]
                or (PRECEDENCE[stack[-1]] == PRECEDENCE[token] and token not in RIGHT_ASSOCIATIVE)
            ):
                output.append(stack.pop())
            stack.append(token)
        elif token.strip():
            raise ValueError(f"unexpected {token!r}")
    while stack:
        if (top := stack.pop()) == "(":
            raise ValueError("unbalanced parentheses")
        output.append(top)
    return output


def evaluate(postfix: list) -> float:
    table = operators()
    values: list = []
    for item in postfix:
        if isinstance(item, int | float):
            values.append(item)
            continue
        unary = item in ("neg", "sqrt", "abs")
        if len(values) < (1 if unary else 2):
            raise ValueError("incomplete expression")
        if unary:
            values.append(table[item](values.pop()))
        else:
            right, left = values.pop(), values.pop()
            values.append(table[item](left, right))
    if len(values) != 1:
        raise ValueError("incomplete expression")
    return values[0]


def run(params):
    try:
        return {"value": evaluate(to_postfix(params["expression"]))}
    except ZeroDivisionError:
        return {"error": "division by zero"}
    except (ValueError, OverflowError) as exc:
        return {"error": str(exc)}
