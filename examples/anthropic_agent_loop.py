"""A small agent loop: Claude calls tools, dyntools resolves them and grows the missing ones.

    ANTHROPIC_API_KEY=sk-... python examples/anthropic_agent_loop.py \
        "What is 1994 in Roman numerals, and how many words are in 'the quick brown fox'?"

The catalog holds one hand-written tool (`add_numbers`, run in this process) in front of the
registry (`./generated_tools`, or --registry). The model is also offered two *wanted* tools
that may not exist yet; when it calls one, `dispatch_tool_uses(..., allow_generation=True)`
generates it (by default with the offline templates; --generator anthropic asks Claude to
write it), gates it, verifies its examples in the sandbox, persists it and runs it there.
Every failure goes back to the model as an `is_error` tool result it can read.

Nothing runs at import; `run_agent` takes any client with `messages.create` (the tests pass
the real SDK client pointed at a local stub server).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from dyntools.adapters import dispatch_tool_uses, tools_for_anthropic
from dyntools.catalog.core import Catalog
from dyntools.generators import Generator, ToolSpec, build_generator
from dyntools.generators.models import DEFAULT_MODELS
from dyntools.pipeline import Dyntools

DEFAULT_MODEL = DEFAULT_MODELS["anthropic"]
MAX_TURNS = 8

WANTED = (
    ToolSpec(
        "roman_numeral",
        "Converts a positive integer (1-3999) to Roman numerals.",
        {"type": "object", "properties": {"number": {"type": "integer"}},
         "required": ["number"]},
    ),
    ToolSpec(
        "word_count",
        "Counts the words in a text.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ),
)


def build_catalog(registry: str | None, generator: Generator | None = None) -> Catalog:
    """The hand-written tools first, then the registry (generation happens in dispatch)."""
    catalog = Catalog(Dyntools(registry, generator=generator), generate=False)

    @catalog.tool(params={"type": "object",
                          "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                          "required": ["a", "b"]})
    def add_numbers(params: dict[str, Any]) -> dict[str, Any]:
        """Adds two numbers."""
        return {"sum": params["a"] + params["b"]}

    return catalog


def run_agent(
    client: Any,
    catalog: Catalog,
    prompt: str,
    *,
    model: str = DEFAULT_MODEL,
    wanted: Sequence[ToolSpec] = WANTED,
    max_turns: int = MAX_TURNS,
) -> str:
    """Loop until the model answers without asking for a tool; return its text."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    for _ in range(max_turns):
        response = client.messages.create(
            model=model,
            max_tokens=1024,
            tools=tools_for_anthropic(catalog, wanted=wanted),
            messages=messages,
        )
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return "".join(block.text for block in response.content if block.type == "text")
        results = dispatch_tool_uses(catalog, response, allow_generation=True, wanted=wanted)
        messages.append({"role": "user", "content": results})
    raise RuntimeError(f"no final answer after {max_turns} turns")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prompt")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--registry", default=None)
    parser.add_argument("--generator", choices=("offline", "anthropic"), default="offline",
                        help="Who writes a missing tool (offline: built-in templates).")
    args = parser.parse_args(argv)
    if not os.environ.get("ANTHROPIC_API_KEY"):
        print("set ANTHROPIC_API_KEY to run this example", file=sys.stderr)
        return 2
    import anthropic

    generator = build_generator(args.generator)
    with build_catalog(args.registry, generator) as catalog:
        print(run_agent(anthropic.Anthropic(), catalog, args.prompt, model=args.model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
