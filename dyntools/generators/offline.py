"""The offline generator: built-in templates for a handful of common tools, no key, no network.

It exists so `make demo` and first experiments run anywhere. Each template in `templates/` is an
ordinary tool file that passes the gate and carries correct EXAMPLES (tests prove both). A
template answers by name only: the spec's description, params and examples are not consulted
(verification still checks caller-supplied examples against it). Any other name is a
`GenerationNoTemplate` that says how to configure a real generator.
"""

from __future__ import annotations

from importlib import resources

from dyntools.errors import GenerationNoTemplate
from dyntools.generators.base import GeneratedSource, ToolSpec

TEMPLATE_PACKAGE = "dyntools.generators"
TEMPLATE_DIR = "templates"
TEMPLATE_SUFFIX = ".py"


def template_names() -> tuple[str, ...]:
    folder = resources.files(TEMPLATE_PACKAGE).joinpath(TEMPLATE_DIR)
    return tuple(
        sorted(
            entry.name.removesuffix(TEMPLATE_SUFFIX)
            for entry in folder.iterdir()
            if entry.is_file() and entry.name.endswith(TEMPLATE_SUFFIX)
        )
    )


def template_source(name: str) -> str:
    if name not in template_names():
        raise GenerationNoTemplate(
            f"the offline generator has no template for {name!r} (it knows: "
            f"{', '.join(template_names())}). To generate other tools, configure a model: "
            "--generator anthropic with ANTHROPIC_API_KEY set, or --generator openai with "
            "--base-url (Ollama: http://localhost:11434/v1, vLLM: http://localhost:8000/v1) "
            "and OPENAI_API_KEY where the server needs one; or write the file yourself and use "
            "--generator file --from FILE",
            generator=OfflineGenerator.id,
            tool=name,
            templates=list(template_names()),
        )
    folder = resources.files(TEMPLATE_PACKAGE).joinpath(TEMPLATE_DIR)
    return folder.joinpath(name + TEMPLATE_SUFFIX).read_text(encoding="utf-8")


class OfflineGenerator:
    id = "offline"
    model = None
    accepts_feedback = False

    def generate(self, spec: ToolSpec) -> GeneratedSource:
        return GeneratedSource.without_model(template_source(spec.name), self.id)
