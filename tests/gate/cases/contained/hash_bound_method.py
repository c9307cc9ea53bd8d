# technique: hash() of a built-in method mixes in the address of the object it is bound to, an identity the replaced hash was meant to refuse
# source: our own attack on the issue 26 guards (safe_hash refused only kinds hashed by object.__hash__)
# verdict: runtime_error
"""Hashes a method."""

NAME = "hash_bound_method"
DESCRIPTION = "Hashes a method."
PARAMS = {"type": "object", "properties": {"secret": {"type": "string"}}, "required": ["secret"]}


def run(params):
    return {"seen": [], "hash": hash([].append)}
