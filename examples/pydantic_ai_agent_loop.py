"""A pydantic-ai agent whose tools come from a dyntools catalog, growing during the run.

    python examples/pydantic_ai_agent_loop.py --offline     # pydantic-ai's FunctionModel
    ANTHROPIC_API_KEY=... python examples/pydantic_ai_agent_loop.py \
        --model anthropic:claude-sonnet-5-5

`toolset_for_pydantic_ai` is a toolset over the catalog (a typed hand-written `multiply`,
then the registry) and one *wanted* tool, generated on first use (offline templates) and run
in the sandbox. The toolset is read again at every step, so tools created during the run are
offered at the next step. A failure reaches the model as a retry prompt. `scripted_model` is
pydantic-ai's own `FunctionModel` answering from a script. Nothing runs at import.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from dyntools.adapters.pydantic_ai_tools import toolset_for_pydantic_ai
from dyntools.catalog.core import Catalog
from dyntools.generators import ToolSpec, build_generator
from dyntools.pipeline import Dyntools

WANTED = (
    ToolSpec("roman_numeral", "Converts a positive integer (1-3999) to Roman numerals.",
             {"type": "object", "properties": {"number": {"type": "integer"}},
              "required": ["number"]}),
)



def build_catalog(registry: str | None) -> Catalog:
    catalog = Catalog(Dyntools(registry, generator=build_generator("offline")),
                      generate=False)

    @catalog.tool
    def multiply(a: float, b: float) -> float:
        """Multiplies two numbers."""
        return a * b

    return catalog


def scripted_model(*turns: Any) -> Any:
    """pydantic-ai's `FunctionModel`, answering turn by turn: tool calls `[(name, args)]`,
    the final text, or a function that writes the final text from the tool outputs it was
    sent (`answer_from`). `model.seen` keeps the messages and the tool names offered each
    turn."""
    from pydantic_ai.messages import (
        ModelResponse,
        RetryPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    script = list(turns)
    seen: list[tuple[list[Any], list[str]]] = []

    def answer(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.append((list(messages), [tool.name for tool in info.function_tools]))
        turn = script.pop(0)
        if callable(turn):  # a failed tool came back as a retry prompt: its text, said
            turn = turn({part.tool_name: (part.content if isinstance(part, ToolReturnPart)
                                          else f"error: {part.model_response()}")
                         for message in messages for part in getattr(message, "parts", ())
                         if isinstance(part, ToolReturnPart | RetryPromptPart)
                         and part.tool_name})
        if isinstance(turn, str):
            return ModelResponse(parts=[TextPart(turn)])
        return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"c{len(seen)}_{i}")
                                    for i, (name, args) in enumerate(turn)])

    model = FunctionModel(answer)
    model.seen = seen  # type: ignore[attr-defined]
    return model


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


def run_agent(model: Any, catalog: Catalog, prompt: str) -> str:
    from pydantic_ai import Agent

    toolset = toolset_for_pydantic_ai(catalog, wanted=WANTED, allow_generation=True)
    agent = Agent(model, toolsets=[toolset], instructions="Use the tools to answer.")
    return str(agent.run_sync(prompt).output)


# The offline run: two tool calls, then an answer written from what the tools returned.
OFFLINE: tuple[Any, ...] = (
    [("roman_numeral", {"number": 1994}), ("multiply", {"a": 6, "b": 7})],
    answer_from,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prompt", nargs="?", default="What is 1994 in Roman numerals, and 6x7?")
    parser.add_argument("--offline", action="store_true", help="Use the scripted model.")
    parser.add_argument("--model", default=None, help="A pydantic-ai model name.")
    parser.add_argument("--registry", default=None)
    args = parser.parse_args(argv)
    if not args.offline and not args.model:
        print("pass --offline, or --model with a pydantic-ai model name", file=sys.stderr)
        return 2
    with build_catalog(args.registry) as catalog:
        model = scripted_model(*OFFLINE) if args.offline else args.model
        print(run_agent(model, catalog, args.prompt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
