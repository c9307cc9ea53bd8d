"""A tool call's result feeds another's params, and a params dict is spread in."""
from __future__ import annotations

options = {"text": inputs["title"]}
words = tools.word_count(text=tools.slugify_text(**options)["slug"].replace("-", " "))
extra = dict(options)
extra["text"] = extra["text"].upper()
loud = tools.slugify_text(**extra)
result = {"words": words["words"], "loud": loud["slug"]}
