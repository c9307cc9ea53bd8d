"""Estimates password strength."""
import math
import string

NAME = "password_strength"
DESCRIPTION = "Scores a password from 0 to 4 using length, character classes and common patterns, with tips."
PARAMS = {
    "type": "object",
    "properties": {"password": {"type": "string"}},
    "required": ["password"],
}
EXAMPLES = [
    {"params": {"password": "password1"}, "result": {"score": 0, "entropy_bits": 46.5, "tips": ["avoid common passwords", "use at least 12 characters", "add uppercase letters", "add symbols"]}},
    {"params": {"password": "Tr0ub4dor&3x!Zq"}, "result": {"score": 4, "entropy_bits": 98.3, "tips": []}},
    {"params": {"password": "abc"}, "result": {"score": 0, "entropy_bits": 14.1, "tips": ["use at least 12 characters", "add uppercase letters", "add digits", "add symbols"]}},
]

COMMON = ["password", "123456", "qwerty", "letmein", "admin", "welcome", "iloveyou"]
CLASS_SIZES = {"lowercase letters": 26, "uppercase letters": 26, "digits": 10, "symbols": 32}


def alphabet(label: str) -> str:
    return {
        "lowercase letters": string.ascii_lowercase,
        "uppercase letters": string.ascii_uppercase,
        "digits": string.digits,
        "symbols": string.punctuation,
    }[label]


def run(params):
    password = params["password"]
    tips = []
    if len(password) < 12:
        tips.append("use at least 12 characters")
    if any(word in password.lower() for word in COMMON):
        tips.insert(0, "avoid common passwords")
    pool = 0
    for label, size in CLASS_SIZES.items():
        if any(ch in alphabet(label) for ch in password):
            pool += size
        elif label != "lowercase letters":
            tips.append(f"add {label}")
    entropy = len(password) * math.log2(pool) if pool else 0.0
    score = min(4, int(entropy // 20))
    if "avoid common passwords" in tips:
        score = 0
    return {"score": score, "entropy_bits": round(entropy, 1), "tips": tips}
