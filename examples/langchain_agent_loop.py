"""A LangChain tool-calling loop whose tools come from a dyntools catalog (and grow on demand).

    python examples/langchain_agent_loop.py --offline     # LangChain's GenericFakeChatModel

Any chat model with `bind_tools` (langchain-anthropic, langchain-openai, ...) takes the same
loop: `tools_for_langchain` gives `StructuredTool`s for the catalog (a typed hand-written
`multiply`, then the registry) and two *wanted* tools, generated on first use (offline
templates) and run in the sandbox. A tool's failure comes back as a `ToolMessage` with
`status="error"` the model can read. Nothing runs at import.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from dyntools.adapters.langchain_tools import tools_for_langchain
from dyntools.catalog.core import Catalog
from dyntools.generators import ToolSpec, build_generator
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


def build_catalog(registry: str | None) -> Catalog:
    catalog = Catalog(Dyntools(registry, generator=build_generator("offline")),
                      generate=False)

    @catalog.tool
    def multiply(a: float, b: float) -> float:
        """Multiplies two numbers."""
        return a * b

    return catalog


def fake_model(*turns: Any) -> Any:
    """LangChain's own fake chat model answering `turns` in order: a list of tool calls
    `[(name, args), ...]` or the final text."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    messages = [AIMessage(content=turn) if isinstance(turn, str) else AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": f"call_{t}_{i}",
                                 "type": "tool_call"} for i, (name, args) in enumerate(turn)])
        for t, turn in enumerate(turns)]
    return GenericFakeChatModel(messages=iter(messages))


def run_agent(model: Any, catalog: Catalog, prompt: str, *,
              max_turns: int = MAX_TURNS) -> tuple[str, list[Any]]:
    """Loop until the model answers without tool calls; return its text and the messages."""
    from langchain_core.messages import HumanMessage

    tools = {tool.name: tool for tool in tools_for_langchain(
        catalog, wanted=WANTED, allow_generation=True)}
    try:
        bound = model.bind_tools(list(tools.values()))
    except NotImplementedError:  # the fake model takes no tools; it is scripted
        bound = model
    messages: list[Any] = [HumanMessage(prompt)]
    for _ in range(max_turns):
        reply = bound.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return str(reply.content), messages
        for call in reply.tool_calls:
            tool = tools.get(call["name"])
            if tool is None:  # a name the model made up: answer through the catalog
                from dyntools.adapters.langchain_tools import dispatch_langchain_tool_calls

                messages += dispatch_langchain_tool_calls(catalog, [call],
                                                          allow_generation=True)
            else:
                messages.append(tool.invoke(call))
    raise RuntimeError(f"no final answer after {max_turns} turns")


OFFLINE = ([("roman_numeral", {"number": 1994}), ("multiply", {"a": 6, "b": 7})],
           "1994 is MCMXCIV, and 6 x 7 = 42.")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prompt", nargs="?", default="What is 1994 in Roman numerals, and 6x7?")
    parser.add_argument("--offline", action="store_true", help="Use the fake chat model.")
    parser.add_argument("--registry", default=None)
    args = parser.parse_args(argv)
    if not args.offline:
        print("this example runs with --offline; pass your own chat model to run_agent",
              file=sys.stderr)
        return 2
    with build_catalog(args.registry) as catalog:
        answer, _ = run_agent(fake_model(*OFFLINE), catalog, args.prompt)
        print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
