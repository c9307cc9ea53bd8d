"""The file generator: a person or another agent wrote the tool; read it from a file or stdin.

The text is taken verbatim (no fence extraction: it is a tool file, not a model answer). A
retry cannot change it, so the loop stops at the first gate rejection.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

from dyntools.errors import GenerationError
from dyntools.generators.base import GeneratedSource, ToolSpec

STDIN = "-"
# Far above any gate's size limit: only there so that /dev/zero or an endless pipe fails
# fast instead of filling memory (the gate then refuses anything over its own limit).
MAX_READ_BYTES = 16 << 20


class FileGenerator:
    id = "file"
    model = None
    accepts_feedback = False

    def __init__(self, path: str | Path = STDIN, *, stdin: IO[bytes] | None = None) -> None:
        self.path = str(path)
        self._stdin = stdin

    def generate(self, spec: ToolSpec) -> GeneratedSource:
        data = self._read()
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GenerationError(
                f"{self._label()} is not valid UTF-8 (byte {exc.start}); tool files are UTF-8 "
                "(`dyntools check` shows the details)",
                generator=self.id,
                path=self.path,
            ) from exc
        if not source.strip():
            raise GenerationError(f"{self._label()} is empty", generator=self.id, path=self.path)
        return GeneratedSource.without_model(source, self.id)

    def _read(self) -> bytes:
        if self.path == STDIN:
            stream = self._stdin if self._stdin is not None else sys.stdin.buffer
            data = stream.read(MAX_READ_BYTES + 1)
        else:
            from dyntools.base.regular_files import read_regular

            try:
                data = read_regular(self.path, MAX_READ_BYTES + 1)  # a FIFO: refused at once
            except OSError as exc:
                raise GenerationError(
                    f"cannot read {self.path}: {exc.strerror or exc}",
                    generator=self.id,
                    path=self.path,
                ) from exc
        if len(data) > MAX_READ_BYTES:
            raise GenerationError(f"{self._label()} is larger than {MAX_READ_BYTES} bytes",
                                  generator=self.id, path=self.path)
        return data

    def _label(self) -> str:
        return "stdin" if self.path == STDIN else self.path
