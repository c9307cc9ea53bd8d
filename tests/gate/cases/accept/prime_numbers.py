"""Prime numbers: test one number or list primes up to a limit."""
import math

NAME = "prime_numbers"
DESCRIPTION = "Lists the primes up to a limit (sieve of Eratosthenes) and factorises a number."
PARAMS = {
    "type": "object",
    "properties": {
        "limit": {"type": "integer", "minimum": 2, "maximum": 1000000},
        "factorise": {"type": "integer", "minimum": 2},
    },
    "anyOf": [{"required": ["limit"]}, {"required": ["factorise"]}],
}
EXAMPLES = [
    {"params": {"limit": 30}, "result": {"primes": [2, 3, 5, 7, 11, 13, 17, 19, 23, 29], "count": 10}},
    {"params": {"factorise": 360}, "result": {"factors": [2, 2, 2, 3, 3, 5], "is_prime": False}},
    {"params": {"factorise": 97}, "result": {"factors": [97], "is_prime": True}},
]


def sieve(limit: int) -> list[int]:
    flags = [True] * (limit + 1)
    flags[0] = flags[1] = False
    for n in range(2, math.isqrt(limit) + 1):
        if flags[n]:
            flags[n * n :: n] = [False] * len(range(n * n, limit + 1, n))
    return [n for n, is_prime in enumerate(flags) if is_prime]


def factorise(n: int) -> list[int]:
    factors = []
    divisor = 2
    while divisor * divisor <= n:
        while n % divisor == 0:
            factors.append(divisor)
            n //= divisor
        divisor += 1 if divisor == 2 else 2
    if n > 1:
        factors.append(n)
    return factors


def run(params):
    if "factorise" in params:
        factors = factorise(params["factorise"])
        return {"factors": factors, "is_prime": len(factors) == 1}
    primes = sieve(params["limit"])
    return {"primes": primes, "count": len(primes)}
