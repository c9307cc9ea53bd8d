"""An agent loop with OpenAI function calling: the model calls tools, dyntools resolves them
and grows the missing ones. Chat Completions by default, Responses with --api responses.

    OPENAI_API_KEY=sk-... python examples/openai_agent_loop.py \
        "What is 1994 in Roman numerals, and how many words are in 'the quick brown fox'?"
    # any OpenAI-compatible server: --base-url http://localhost:11434/v1 --model qwen2.5-coder

The catalog holds one typed hand-written tool (`multiply`, run in this process) in front of
the registry; the model is also offered two *wanted* tools that may not exist yet, generated
on first use (offline templates by default) and run in the sandbox. Every failure goes back
to the model as a tool message it can read. Nothing runs at import; `run_agent` takes any
client with the openai SDK's shape (the tests use the real client against a local stub).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from dyntools.adapters.openai_tools import dispatch_openai_tool_calls, tools_for_openai
from dyntools.catalog.core import Catalog
from dyntools.generators import Generator, ToolSpec, build_generator
from dyntools.generators.models import DEFAULT_MODELS
from dyntools.pipeline import Dyntools

MAX_TURNS = 8
WANTED = (
    ToolSpec("roman_numeral", "Converts a positive integer (1-3999) to Roman numerals.",
             {"type": "object", "properties": {"number": {"type": "integer"}},
              "required": ["number"]}),
    ToolSpec("word_count", "Counts the words in a text.",
             {"type": "object", "properties": {"text": {"type": "string"}},
              "required": ["text"]}),
)


def build_catalog(registry: str | None, generator: Generator | None = None) -> Catalog:
    catalog = Catalog(Dyntools(registry, generator=generator), generate=False)

    @catalog.tool
    def multiply(a: float, b: float) -> float:
        """Multiplies two numbers."""
        return a * b

    return catalog


def run_agent(client: Any, catalog: Catalog, prompt: str, *, model: str = DEFAULT_MODELS[
        "openai"], api: str = "chat", wanted: Sequence[ToolSpec] = WANTED,
              max_turns: int = MAX_TURNS) -> str:
    """Loop until the model answers without calling a tool; return its text."""
    if api == "responses":
        items: list[Any] = [{"role": "user", "content": prompt}]
        for _ in range(max_turns):
            response = client.responses.create(
                model=model, input=items, tools=tools_for_openai(catalog, api=api,
                                                                 wanted=wanted))
            results = dispatch_openai_tool_calls(catalog, response, allow_generation=True,
                                                 wanted=wanted)
            if not results:
                return str(response.output_text)
            items += [*response.output, *results]
        raise RuntimeError(f"no final answer after {max_turns} turns")
    messages: list[Any] = [{"role": "user", "content": prompt}]
    for _ in range(max_turns):
        completion = client.chat.completions.create(
            model=model, messages=messages, tools=tools_for_openai(catalog, wanted=wanted))
        message = completion.choices[0].message
        results = dispatch_openai_tool_calls(catalog, completion, allow_generation=True,
                                             wanted=wanted)
        if not results:
            return str(message.content or "")
        messages += [message, *results]
    raise RuntimeError(f"no final answer after {max_turns} turns")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prompt")
    parser.add_argument("--model", default=DEFAULT_MODELS["openai"])
    parser.add_argument("--api", choices=("chat", "responses"), default="chat")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--registry", default=None)
    args = parser.parse_args(argv)
    if not os.environ.get("OPENAI_API_KEY") and not args.base_url:
        print("set OPENAI_API_KEY (or --base-url for a local server) to run this example",
              file=sys.stderr)
        return 2
    import openai

    client = openai.OpenAI(base_url=args.base_url,
                           api_key=os.environ.get("OPENAI_API_KEY") or "not-needed")
    with build_catalog(args.registry, build_generator("offline")) as catalog:
        print(run_agent(client, catalog, args.prompt, model=args.model, api=args.api))
    return 0


if __name__ == "__main__":
    sys.exit(main())
