"""Normalises line endings and whitespace."""

NAME = "whitespace_normalize"
DESCRIPTION = "Normalises line endings to LF, expands tabs and collapses runs of spaces in each line."
PARAMS = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "tab_size": {"type": "integer", "minimum": 1, "maximum": 16, "default": 4}},
    "required": ["text"],
}
EXAMPLES = [
    {"params": {"text": "a\r\nb"}, "result": {"text": "a\nb", "lines": 2, "crlf": 1}},
    {"params": {"text": "x\tyy   z\rlast  \n"}, "result": {"text": "x yy z\nlast\n", "lines": 2, "crlf": 0}},
]


def run(params):
    text = params["text"]
    crlf = text.count("\r\n")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = []
    for line in text.split("\n"):
        line = line.expandtabs(params.get("tab_size", 4))
        lines.append(" ".join(line.split(" ")).rstrip())
        while "  " in lines[-1]:
            lines[-1] = lines[-1].replace("  ", " ")
    out = "\n".join(lines)
    return {"text": out, "lines": len(out.splitlines()), "crlf": crlf}
