# technique: a private-use character in a string literal: fonts disagree on its glyph (or show none), so the reviewer cannot know what the file says
# source: dyntools issue 9, finding 5 (the source hygiene classes)
# family: hygiene
"""Attack case: a private-use character in the source."""
NAME = "private_use_source"
DESCRIPTION = "Greets."
PARAMS = {"type": "object", "properties": {}}
GREETING = "hi"  # expect: DT013


def run(params):
    return {"greeting": GREETING}
