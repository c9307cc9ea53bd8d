"""A smolagents ToolCallingAgent whose tools come from a dyntools catalog (and grow on demand).

    python examples/smolagents_agent_loop.py --offline     # a scripted smolagents Model

`tools_for_smolagents` gives `smolagents.Tool`s for the catalog (a typed hand-written
`multiply`, then the registry) and two *wanted* tools, generated on first use (offline
templates). Generated tools run in dyntools' sandbox, never in smolagents' executor. A
failure raises inside the tool, and the agent shows the error to the model at its next
step. `scripted_model` is smolagents' `Model` interface answering from a script (smolagents
ships no fake model); any real model (`InferenceClientModel`, `LiteLLMModel`, ...) takes its
place. Nothing runs at import.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from dyntools.adapters.smolagents_tools import tools_for_smolagents
from dyntools.catalog.core import Catalog
from dyntools.generators import ToolSpec, build_generator
from dyntools.pipeline import Dyntools

WANTED = (
    ToolSpec("roman_numeral", "Converts a positive integer (1-3999) to Roman numerals.",
             {"type": "object", "properties": {"number": {"type": "integer",
                                                           "description": "The integer."}},
              "required": ["number"]}),
)
OFFLINE = ([("roman_numeral", {"number": 1994}), ("multiply", {"a": 6, "b": 7})],
           # the final answer, from what the tools returned
           lambda outputs: [("final_answer", {"answer": answer_from(outputs)})])


def build_catalog(registry: str | None) -> Catalog:
    catalog = Catalog(Dyntools(registry, generator=build_generator("offline")),
                      generate=False)

    @catalog.tool
    def multiply(a: float, b: float) -> float:
        """Multiplies two numbers."""
        return a * b

    return catalog


def scripted_model(*turns: Any) -> Any:
    """A smolagents `Model` whose every answer is the next turn's tool calls, or a function
    that writes them from the tool outputs it was sent (`answer_from`); it keeps the messages
    it was sent."""
    from smolagents.models import (
        ChatMessage,
        ChatMessageToolCall,
        ChatMessageToolCallFunction,
        MessageRole,
        Model,
    )

    class ScriptedModel(Model):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(model_id="scripted")
            self.turns = list(turns)
            self.seen: list[Any] = []
            self.steps: list[list[str]] = []  # the tools it called, step by step

        def generate(self, messages: list[Any], **kwargs: Any) -> Any:
            self.seen.append(messages)
            calls = self.turns.pop(0)
            if callable(calls):
                calls = calls(_tool_outputs(messages, self.steps))
            self.steps.append([name for name, _ in calls])
            return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[
                ChatMessageToolCall(id=f"call_{len(self.seen)}_{i}", type="function",
                                    function=ChatMessageToolCallFunction(
                                        name=name, arguments=json.dumps(args)))
                for i, (name, args) in enumerate(calls)])

    return ScriptedModel()


def _tool_outputs(messages: list[Any], steps: list[list[str]]) -> dict[str, Any]:
    """Tool name -> what smolagents showed the model of its result. Each step the model
    took (`steps`: the tools it called) gets one tool response: an observation with a line
    per call (Python reprs), or the step's error."""
    import ast

    responses = [text for text in (
        "".join(part.get("text", "") for part in message.content or []
                if isinstance(part, dict)) for message in messages)
        if text.startswith(("Observation:\n", "Error:\n"))]
    outputs: dict[str, Any] = {}
    for calls, text in zip(steps, responses, strict=False):
        if text.startswith("Error:\n"):
            outputs.update(dict.fromkeys(calls, text))
            continue
        for name, line in zip(calls, text.split("\n", 1)[1].splitlines(), strict=False):
            try:
                outputs[name] = ast.literal_eval(line)
            except (ValueError, SyntaxError):
                outputs[name] = line
    return outputs


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



def run_agent(model: Any, catalog: Catalog, prompt: str, *, max_steps: int = 6) -> Any:
    from smolagents import ToolCallingAgent

    agent = ToolCallingAgent(tools=tools_for_smolagents(catalog, wanted=WANTED,
                                                        allow_generation=True),
                             model=model, max_steps=max_steps, verbosity_level=0)
    return agent.run(prompt)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prompt", nargs="?", default="What is 1994 in Roman numerals, and 6x7?")
    parser.add_argument("--offline", action="store_true", help="Use the scripted model.")
    parser.add_argument("--registry", default=None)
    args = parser.parse_args(argv)
    if not args.offline:
        print("this example runs with --offline; pass your own smolagents model to run_agent",
              file=sys.stderr)
        return 2
    with build_catalog(args.registry) as catalog:
        print(run_agent(scripted_model(*OFFLINE), catalog, args.prompt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
