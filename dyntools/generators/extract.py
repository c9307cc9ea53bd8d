"""Pull the tool's source out of a model answer.

Models wrap code in Markdown fences, add prose around it, or answer with a bare module. The
order of preference: the largest ```python fence, else the largest untagged fence, else the
largest fence of any tag that defines `run(`, else the whole answer when it defines `run(` at
the top level. Anything else is `GenerationNoCode`. The text is never executed or even parsed
here; the gate decides what it is.
"""

from __future__ import annotations

import re

from dyntools.errors import GenerationNoCode

PYTHON_TAGS = frozenset({"python", "python3", "py", "py3"})

# An opening fence (``` or ~~~, three or more), an optional info string, the body, and a closing
# fence of the same characters on a line of its own. An unclosed fence runs to the end of the
# answer (a truncated reply); the gate will judge what is there.
_FENCE = re.compile(
    r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<tag>[^\s`]*)[^\n]*\n"
    r"(?P<body>.*?)"
    r"(?:^[ \t]{0,3}(?P=fence)[`~]*[ \t]*$|\Z)",
    re.MULTILINE | re.DOTALL,
)
_DEFINES_RUN = re.compile(r"^def[ \t]+run[ \t]*\(", re.MULTILINE)


def extract_code(answer: str) -> str:
    """The tool source in `answer`, ending in one newline; raises `GenerationNoCode`."""
    blocks = [(m.group("tag").lower(), m.group("body")) for m in _FENCE.finditer(answer)]
    for wanted in (
        [body for tag, body in blocks if tag in PYTHON_TAGS],
        [body for tag, body in blocks if not tag],
        [body for _, body in blocks if _DEFINES_RUN.search(body)],
    ):
        candidates = [body for body in wanted if body.strip()]
        if candidates:
            return _tidy(max(candidates, key=len))
    if not blocks and _DEFINES_RUN.search(answer):
        return _tidy(answer)
    raise GenerationNoCode(
        "the model's answer contains no Python code (no ```python block and no module "
        "defining run(params))",
        answer_chars=len(answer),
    )


def _tidy(code: str) -> str:
    return code.strip("\n") + "\n"
