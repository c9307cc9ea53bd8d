"""Groups words that are anagrams of each other."""
from collections import defaultdict

NAME = "anagram_groups"
DESCRIPTION = "Groups words into anagram sets (ignoring case and spaces); singletons are optional."
PARAMS = {
    "type": "object",
    "properties": {
        "words": {"type": "array", "items": {"type": "string"}},
        "include_singletons": {"type": "boolean", "default": False},
    },
    "required": ["words"],
}
EXAMPLES = [
    {
        "params": {"words": ["listen", "Silent", "enlist", "google", "dormitory", "dirty room", "cat"]},
        "result": {"groups": [["listen", "Silent", "enlist"], ["dormitory", "dirty room"]]},
    },
    {
        "params": {"words": ["a", "b", "a"], "include_singletons": True},
        "result": {"groups": [["a", "a"], ["b"]]},
    },
]


def signature(word: str) -> str:
    return "".join(sorted(word.lower().replace(" ", "")))


def run(params):
    buckets: defaultdict[str, list[str]] = defaultdict(list)
    for word in params["words"]:
        buckets[signature(word)].append(word)
    minimum = 1 if params.get("include_singletons") else 2
    groups = [members for members in buckets.values() if len(members) >= minimum]
    groups.sort(key=lambda members: (-len(members), members[0].lower()))
    return {"groups": groups}
