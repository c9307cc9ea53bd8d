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
import json
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
    `[(name, args), ...]`, the final text, or a function that writes the final text from the
    tool outputs the model was sent (`answer_from`)."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, ToolMessage

    heard: list[Any] = []  # the messages of the turn being answered

    def outputs() -> dict[str, Any]:
        names = {call["id"]: call["name"] for message in heard
                 if isinstance(message, AIMessage) for call in message.tool_calls}
        return {names.get(m.tool_call_id, "?"): m.content for m in heard
                if isinstance(m, ToolMessage)}

    def replies() -> Any:
        for t, scripted in enumerate(turns):
            turn = scripted(outputs()) if callable(scripted) else scripted
            yield AIMessage(content=turn) if isinstance(turn, str) else AIMessage(
                content="", tool_calls=[{"name": name, "args": args, "id": f"call_{t}_{i}",
                                         "type": "tool_call"}
                                        for i, (name, args) in enumerate(turn)])

    class Listening(GenericFakeChatModel):  # type: ignore[misc]
        def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
            heard[:] = messages
            return super()._generate(messages, *args, **kwargs)

    return Listening(messages=replies())


def answer_from(outputs: dict[str, Any]) -> str:
    """The scripted model's final answer, read from the tool outputs it was sent (a tool that
    failed is said to have failed): never a text written before the tools ran."""
    roman = _read(outputs.get("roman_numeral"), "roman")
    product = _read(outputs.get("multiply"), "result")
    first = (f"1994 is {roman}" if isinstance(roman, str) else
             f"roman_numeral failed ({str(outputs.get('roman_numeral'))[:120]})")
    second = (f"6 x 7 = {product:g}" if isinstance(product, int | float) else
              f"multiply failed ({str(outputs.get('multiply'))[:120]})")
    return f"{first}, and {second}."


def _read(output: Any, key: str) -> Any:
    """A field of a tool's output, whether it came as data or as JSON text."""
    if isinstance(output, str):
        try:
            output = json.loads(output)
        except ValueError:
            return None
    return output.get(key) if isinstance(output, dict) else None


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


# The offline run: two tool calls, then an answer written from what the tools returned.
OFFLINE = ([("roman_numeral", {"number": 1994}), ("multiply", {"a": 6, "b": 7})],
           answer_from)


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
