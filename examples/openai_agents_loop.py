"""An OpenAI Agents SDK agent whose tools come from a dyntools catalog (and grow on demand).

    python examples/openai_agents_loop.py --offline      # a scripted model: no key, no network
    OPENAI_API_KEY=sk-... python examples/openai_agents_loop.py "What is 1994 in Roman numerals?"

`tools_for_openai_agents` turns the catalog (one typed hand-written tool, `multiply`, in front
of the registry) plus two *wanted* tools into `FunctionTool`s; a wanted tool that does not exist
is generated on first use (offline templates) and runs in the sandbox. `ScriptedModel` is the
SDK's `Model` interface answering from a script: it plays the model in `--offline` runs and in
the tests. Nothing runs at import.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from dyntools.adapters.openai_agents import tools_for_openai_agents
from dyntools.catalog.core import Catalog
from dyntools.generators import ToolSpec, build_generator
from dyntools.pipeline import Dyntools

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


def scripted_model(script: Sequence[Any]) -> Any:
    """A `agents.models.interface.Model` that answers turn by turn from `script`: a list of
    tool calls `[(name, params), ...]`, the final text, or a function that writes the final
    text from the tool outputs it was sent (`answer_from`). It keeps what it was sent."""
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class ScriptedModel(Model):
        def __init__(self) -> None:
            self.turns = list(script)
            self.inputs: list[Any] = []

        async def get_response(self, system_instructions: Any, input: Any, *args: Any,
                               **kwargs: Any) -> Any:
            self.inputs.append(input)
            turn = self.turns.pop(0)
            if callable(turn):
                turn = turn(_tool_outputs(input))
            if isinstance(turn, str):
                output: list[Any] = [ResponseOutputMessage(
                    id="msg", role="assistant", status="completed", type="message",
                    content=[ResponseOutputText(text=turn, type="output_text",
                                                annotations=[])])]
            else:
                output = [ResponseFunctionToolCall(
                    type="function_call", call_id=f"call_{len(self.inputs)}_{i}", name=name,
                    arguments=json.dumps(params)) for i, (name, params) in enumerate(turn)]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the scripted model does not stream")

    return ScriptedModel()


def _tool_outputs(items: Any) -> dict[str, Any]:
    """Tool name -> the output the model was sent, from the SDK's input items."""
    if not isinstance(items, list):
        return {}
    def field(item: Any, key: str) -> Any:
        return item.get(key) if isinstance(item, dict) else getattr(item, key, None)

    names = {field(i, "call_id"): field(i, "name") for i in items
             if field(i, "type") == "function_call"}
    return {names.get(field(i, "call_id"), "?"): field(i, "output") for i in items
            if field(i, "type") == "function_call_output"}


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



def run_agent(catalog: Catalog, prompt: str, model: Any = None) -> str:
    from agents import Agent, Runner, set_tracing_disabled

    set_tracing_disabled(True)  # no trace upload: nothing leaves this machine
    agent = Agent(name="assistant", instructions="Use the tools to answer.",
                  tools=tools_for_openai_agents(catalog, wanted=WANTED,
                                                allow_generation=True),
                  **({"model": model} if model is not None else {}))
    return str(Runner.run_sync(agent, prompt).final_output)


# The offline run: two tool calls, then an answer written from what the tools returned.
OFFLINE_SCRIPT: list[Any] = [
    [("roman_numeral", {"number": 1994}), ("multiply", {"a": 6, "b": 7})],
    answer_from,
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prompt", nargs="?", default="What is 1994 in Roman numerals, and 6x7?")
    parser.add_argument("--offline", action="store_true", help="Use the scripted model.")
    parser.add_argument("--registry", default=None)
    args = parser.parse_args(argv)
    if not args.offline and not os.environ.get("OPENAI_API_KEY"):
        print("set OPENAI_API_KEY, or pass --offline for the scripted model", file=sys.stderr)
        return 2
    with build_catalog(args.registry) as catalog:
        model = scripted_model(OFFLINE_SCRIPT) if args.offline else None
        print(run_agent(catalog, args.prompt, model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
