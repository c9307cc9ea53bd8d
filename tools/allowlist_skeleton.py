"""Print an allowlist.toml skeleton for a module, for a reviewer to edit. Never used at run time.

    .venv/bin/python tools/allowlist_skeleton.py urllib.parse [more modules...]

The skeleton sorts every public name (`dir(module)` without leading underscores, plus public
sub-modules of a package, which only appear in `dir` once something imports them) into:

- `submodules`: module objects, never reachable unless allow-listed themselves;
- `excluded`: metaclasses, pre-filled with a reason (class factories are refused by policy);
- `members`: everything else, to be reviewed one by one before it is trusted.

It imports the module it describes, which is why only a person runs it: the gate never imports.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import types
from dataclasses import dataclass, field

WRAP_AT = 100
METACLASS_REASON = (
    "a metaclass: calling it builds a class whose dunder methods come from plain dict keys"
)


@dataclass
class Skeleton:
    module: str
    members: list[str] = field(default_factory=list)
    submodules: list[str] = field(default_factory=list)
    excluded: dict[str, str] = field(default_factory=dict)


def public_names(module: types.ModuleType) -> set[str]:
    """Public names now, plus public sub-modules that an import elsewhere would add."""
    names = {name for name in dir(module) if not name.startswith("_")}
    search_path = getattr(module, "__path__", None)
    if search_path is not None:
        names |= {
            info.name for info in pkgutil.iter_modules(search_path) if not info.name.startswith("_")
        }
    return names


def is_submodule(module: types.ModuleType, name: str) -> bool:
    value = getattr(module, name, None)
    if isinstance(value, types.ModuleType):
        return True
    return value is None and hasattr(module, "__path__")


def is_metaclass(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, type)


def classify(dotted: str) -> Skeleton:
    module = importlib.import_module(dotted)
    skeleton = Skeleton(dotted)
    for name in sorted(public_names(module)):
        if is_submodule(module, name):
            skeleton.submodules.append(name)
        elif is_metaclass(getattr(module, name)):
            skeleton.excluded[name] = METACLASS_REASON
        else:
            skeleton.members.append(name)
    return skeleton


def toml_list(key: str, names: list[str], indent: str = "    ") -> str:
    """`key = [...]`, on one line when it fits, else wrapped at WRAP_AT columns."""
    quoted = [f'"{name}"' for name in names]
    one_line = f"{key} = [{', '.join(quoted)}]"
    if len(one_line) <= WRAP_AT:
        return one_line
    lines = [f"{key} = ["]
    current = ""
    for item in quoted:
        piece = f"{item},"
        candidate = f"{current} {piece}" if current else indent + piece
        if current and len(candidate) > WRAP_AT:
            lines.append(current)
            candidate = indent + piece
        current = candidate
    lines += [current, "]"]
    return "\n".join(lines)


def render(skeleton: Skeleton) -> str:
    lines = [f"[modules.{skeleton.module}]", toml_list("members", skeleton.members)]
    if skeleton.submodules:
        lines.append(toml_list("submodules", skeleton.submodules))
    lines.append(f"[modules.{skeleton.module}.excluded]")
    lines += [f'{name} = "{why}"' for name, why in sorted(skeleton.excluded.items())]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    print("\n".join(render(classify(dotted)) for dotted in argv), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
