"""No tool at all: a script may just compute."""
from collections import Counter

counts = Counter(inputs["words"])
result = {"most_common": counts.most_common(2)}
