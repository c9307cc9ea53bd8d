"""What a version file's bytes declare, read without running anything, cached by hash.

    parsed = ContentCache().get(record.sha256, data)   # Parsed: metadata, capabilities
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from dyntools.gate.capabilities import Capabilities, DeclarationError
from dyntools.pipeline.toolmeta import ToolMetadata, read_metadata
from dyntools.registry.config import declared_capabilities

MAX_CACHE = 8192


@dataclass(frozen=True, slots=True)
class Parsed:
    """What one file's bytes declare, read without running anything."""

    metadata: ToolMetadata | None
    capabilities: Capabilities | None
    problem: str | None = None  # why metadata or capabilities could not be read

    @property
    def description(self) -> str:
        return self.metadata.description if self.metadata is not None else ""


def parse(data: bytes) -> Parsed:
    """Metadata and capabilities of any bytes (a tampered file too): never raises."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Parsed(None, None, "the file is not valid UTF-8")
    try:
        metadata = read_metadata(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return Parsed(None, None, f"the file does not parse: {type(exc).__name__}")
    try:
        caps: Capabilities | None = declared_capabilities(text)
    except DeclarationError as exc:
        return Parsed(metadata, None, f"CAPABILITIES is malformed: {exc.message}")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return Parsed(metadata, None, f"CAPABILITIES cannot be read: {type(exc).__name__}")
    return Parsed(metadata, caps)


class ContentCache:
    """Parsed content by SHA-256 (bytes are immutable per hash), bounded, thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[str, Parsed] = OrderedDict()

    def get(self, digest: str, data: bytes | None = None) -> Parsed | None:
        with self._lock:
            hit = self._items.get(digest)
            if hit is not None:
                self._items.move_to_end(digest)
                return hit
        if data is None:
            return None
        parsed = parse(data)
        with self._lock:
            self._items[digest] = parsed
            while len(self._items) > MAX_CACHE:
                self._items.popitem(last=False)
        return parsed


