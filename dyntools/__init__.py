"""dyntools: let an LLM agent grow the tools it is missing, safely."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
