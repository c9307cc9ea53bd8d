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
OFFLINE_SCRIPT: list[Any] = [
    [("roman_numeral", {"number": 1994}), ("multiply", {"a": 6, "b": 7})],
    "1994 is MCMXCIV, and 6 x 7 = 42.",
]


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
    tool calls `[(name, params), ...]`, or the final text. It keeps what it was sent."""
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


def run_agent(catalog: Catalog, prompt: str, model: Any = None) -> str:
    from agents import Agent, Runner, set_tracing_disabled

    set_tracing_disabled(True)  # no trace upload: nothing leaves this machine
    agent = Agent(name="assistant", instructions="Use the tools to answer.",
                  tools=tools_for_openai_agents(catalog, wanted=WANTED,
                                                allow_generation=True),
                  **({"model": model} if model is not None else {}))
    return str(Runner.run_sync(agent, prompt).final_output)


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
