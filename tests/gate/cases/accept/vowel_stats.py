"""Counts vowels and consonants with lowercase module constants."""

NAME = "vowel_stats"
DESCRIPTION = "Counts the vowels, consonants and other characters of a text (English letters)."
PARAMS = {
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 100000}},
    "required": ["text"],
}
EXAMPLES = [
    {"params": {"text": "Hello, World!"}, "result": {"vowels": 3, "consonants": 7, "other": 3, "most_common_vowel": "o"}},
    {"params": {"text": "rhythm"}, "result": {"vowels": 0, "consonants": 6, "other": 0, "most_common_vowel": None}},
]

vowels = "aeiou"
letters = "abcdefghijklmnopqrstuvwxyz"


def run(params):
    text = params["text"].lower()
    counts = {v: 0 for v in vowels}
    consonants = other = 0
    for ch in text:
        if ch in counts:
            counts[ch] += 1
        elif ch in letters:
            consonants += 1
        else:
            other += 1
    total = sum(counts.values())
    best = max(vowels, key=lambda v: counts[v]) if total else None
    return {"vowels": total, "consonants": consonants, "other": other, "most_common_vowel": best}
