"""The gate's policy: `allowlist.toml` read into immutable data.

The same file drives the gate, the sandbox's runtime import guard and the generators' prompt,
so what a model is told and what is enforced cannot drift apart.

Lookup order for the file: an explicit path, then `DYNTOOLS_ALLOWLIST`, then the copy shipped
inside the package (wheel builds force-include it), then the repository's top-level file (an
editable install).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from dyntools.base.regular_files import open_regular
from dyntools.gate.findings import sha256_hex

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

ALLOWLIST_ENV = "DYNTOOLS_ALLOWLIST"


class PolicyError(ValueError):
    """The allow-list file is missing or malformed. Quotes the file and the offending key."""


PYTHON, DYNTOOLS = "python", "dyntools"
PROVIDERS = (PYTHON, DYNTOOLS)
# What a member of a dyntools-provided module may need declared (dyntools.gate.capabilities).
CAPABILITY_KINDS = ("http", "secrets", "tools")


class ModulePolicy(NamedTuple):
    name: str
    members: frozenset[str]
    excluded: Mapping[str, str]
    submodules: frozenset[str]
    # "python": the standard library's module of that name; "dyntools": a module dyntools
    # gives the worker (`host`), which the host side never imports by this name.
    provider: str = PYTHON
    # member -> the CAPABILITIES kind it needs declared (non-empty) to be used.
    requires: Mapping[str, str] = MappingProxyType({})  # immutable: one shared empty map
    # Members usable only as isinstance/issubclass's second argument and in annotations
    # (`collections.abc`: held as values, ABCs' register() changes isinstance answers).
    type_checks_only: bool = False
    # member (a class) -> the only attributes its instances expose to a tool (`queue.Queue`:
    # not its locks and conditions); enforced by the worker's attribute guard.
    instance_attributes: Mapping[str, frozenset[str]] = MappingProxyType({})

    def reason_excluded(self, member: str) -> str | None:
        return self.excluded.get(member)


class Limits(NamedTuple):
    max_bytes: int
    max_nodes: int
    max_depth: int


class Policy(NamedTuple):
    path: str
    digest: str
    text: str
    limits: Limits
    modules: Mapping[str, ModulePolicy]
    denied_modules: Mapping[str, str]
    builtins: frozenset[str]
    denied_builtins: Mapping[str, str]
    annotation_names: frozenset[str]
    denied_attributes: Mapping[str, str]
    denied_attribute_prefixes: Mapping[str, str]
    denied_calls: Mapping[str, str]

    @property
    def python_modules(self) -> Mapping[str, ModulePolicy]:
        """The allowed modules Python provides (the ones host-side code may import to
        inspect); a dyntools-provided module such as `host` is not importable by its name
        outside the worker."""
        return MappingProxyType({name: module for name, module in self.modules.items()
                                 if module.provider == PYTHON})

    @property
    def type_check_modules(self) -> frozenset[str]:
        """The allowed modules whose members are for type checks and annotations only."""
        return frozenset(name for name, module in self.modules.items()
                         if module.type_checks_only)

    @property
    def provided_modules(self) -> frozenset[str]:
        """The allowed modules dyntools provides (`host`)."""
        return frozenset(name for name, module in self.modules.items()
                         if module.provider != PYTHON)

    def module(self, dotted: str) -> ModulePolicy | None:
        return self.modules.get(dotted)

    def is_package_prefix(self, dotted: str) -> bool:
        """True when `dotted` is a parent package of an allowed module (`urllib`)."""
        prefix = dotted + "."
        return any(name.startswith(prefix) for name in self.modules)

    def module_denial(self, dotted: str) -> str | None:
        """The deny-list reason for a module or any of its parent packages."""
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            reason = self.denied_modules.get(".".join(parts[:i]))
            if reason:
                return reason
        return None

    def attribute_denial(self, attr: str) -> str | None:
        reason = self.denied_attributes.get(attr)
        if reason is not None:
            return reason
        for prefix, why in self.denied_attribute_prefixes.items():
            if attr.startswith(prefix):
                return why
        return None


def _frozen_map(value: Any, where: str) -> Mapping[str, str]:
    if value is None:
        return MappingProxyType({})
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise PolicyError(f"{where} must be a table of name = \"reason\"")
    return MappingProxyType(dict(value))


def _str_set(value: Any, where: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PolicyError(f"{where} must be a list of strings")
    return frozenset(value)


def _int(table: Mapping[str, Any], key: str, where: str) -> int:
    value = table.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise PolicyError(f"{where}.{key} must be a positive integer, got {value!r}")
    return value


def parse_policy(data: bytes, path: str = "<allowlist>") -> Policy:
    digest = sha256_hex(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyError(f"{path}: {exc}") from exc
    raw = _read_parsed(digest)
    if raw is None:
        import tomllib  # ~10 ms with the parse: only for a file not parsed before

        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise PolicyError(f"{path}: {exc}") from exc
        _write_parsed(digest, raw)
    limits_table = raw.get("limits", {})
    limits = Limits(
        max_bytes=_int(limits_table, "max_bytes", "limits"),
        max_nodes=_int(limits_table, "max_nodes", "limits"),
        max_depth=_int(limits_table, "max_depth", "limits"),
    )
    builtins_table = raw.get("builtins", {})
    attributes_table = raw.get("attributes", {})
    modules: dict[str, ModulePolicy] = {}
    for name, table in (raw.get("modules") or {}).items():
        _collect_modules(name, table, modules)
    return Policy(
        path=path,
        digest=digest,
        text=text,
        limits=limits,
        modules=MappingProxyType(modules),
        denied_modules=_frozen_map(raw.get("denied_modules"), "denied_modules"),
        builtins=_str_set(builtins_table.get("allowed"), "builtins.allowed"),
        denied_builtins=_frozen_map(builtins_table.get("denied"), "builtins.denied"),
        annotation_names=_str_set(
            builtins_table.get("annotation_only"), "builtins.annotation_only"
        ),
        denied_attributes=_frozen_map(attributes_table.get("denied"), "attributes.denied"),
        denied_attribute_prefixes=_frozen_map(
            attributes_table.get("denied_prefixes"), "attributes.denied_prefixes"
        ),
        denied_calls=_frozen_map(raw.get("denied_calls"), "denied_calls"),
    )


# The parsed TOML of an allow-list, as JSON, keyed by the SHA-256 of its bytes: reading the
# shipped allow-list with tomllib took ~10 ms of every start-up (tomllib's import and a pure
# Python parse), json.loads of the same tables ~0.3 ms. The cache sits where Python keeps
# this module's own bytecode (`__pycache__` beside it, or under PYTHONPYCACHEPREFIX), which
# is trusted as the code is, and is written only when Python writes bytecode. A file whose
# bytes changed has another digest, so it is parsed again; an entry that does not read back
# as the tables of its digest is ignored.
_PARSED_VERSION = 1


def _parsed_cache_file(digest: str) -> str:
    folder, _ = os.path.split(os.path.abspath(__file__))
    prefix = sys.pycache_prefix
    cache = (os.path.join(prefix, folder.lstrip(os.sep)) if prefix
             else os.path.join(folder, "__pycache__"))
    return os.path.join(cache, f"allowlist-{digest[:40]}.json")


def _read_parsed(digest: str) -> dict[str, Any] | None:
    try:
        with open(_parsed_cache_file(digest), "rb") as handle:
            entry = json.loads(handle.read())
    except (OSError, ValueError):  # none yet, not UTF-8 (a UnicodeDecodeError) or not JSON
        return None
    if (not isinstance(entry, dict) or entry.get("version") != _PARSED_VERSION
            or entry.get("digest") != digest or not isinstance(entry.get("tables"), dict)):
        return None
    tables: dict[str, Any] = entry["tables"]
    return tables


def _write_parsed(digest: str, raw: dict[str, Any]) -> None:
    if sys.dont_write_bytecode:
        return
    try:
        encoded = json.dumps({"version": _PARSED_VERSION, "digest": digest, "tables": raw},
                                 allow_nan=False)
    except (TypeError, ValueError):  # a TOML date or time, or a float JSON cannot hold
        return
    target = _parsed_cache_file(digest)
    temporary = f"{target}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(encoded)
        os.replace(temporary, target)
    except OSError:  # a read-only install: parse each time, as before
        with contextlib.suppress(OSError):
            os.remove(temporary)


_MODULE_KEYS = frozenset({"members", "excluded", "submodules", "provider", "requires",
                          "type_checks_only", "instance_attributes"})


def _collect_modules(name: str, table: Any, out: dict[str, ModulePolicy]) -> None:
    """`[modules.urllib.parse]` arrives as nested tables; flatten them to dotted names."""
    if not isinstance(table, dict):
        raise PolicyError(f"modules.{name} must be a table")
    if "members" in table:
        provider = table.get("provider", PYTHON)
        if provider not in PROVIDERS:
            raise PolicyError(f"modules.{name}.provider must be one of {', '.join(PROVIDERS)}, "
                              f"got {provider!r}")
        members = _str_set(table["members"], f"modules.{name}.members")
        requires = _frozen_map(table.get("requires"), f"modules.{name}.requires")
        for member, kind in requires.items():
            if member not in members or kind not in CAPABILITY_KINDS:
                raise PolicyError(f"modules.{name}.requires.{member}: a member of the module "
                                  f"that needs one of {', '.join(CAPABILITY_KINDS)}")
        if requires and provider == PYTHON:
            raise PolicyError(f"modules.{name}.requires: only a module dyntools provides "
                              "(provider = \"dyntools\") has members that need capabilities")
        type_checks_only = table.get("type_checks_only", False)
        if not isinstance(type_checks_only, bool):
            raise PolicyError(f"modules.{name}.type_checks_only must be true or false")
        instance_attributes = _instance_attributes(
            table.get("instance_attributes"), members, f"modules.{name}.instance_attributes")
        module = ModulePolicy(
            name=name,
            members=members,
            excluded=_frozen_map(table.get("excluded"), f"modules.{name}.excluded"),
            submodules=_str_set(table.get("submodules"), f"modules.{name}.submodules"),
            provider=provider,
            requires=requires,
            type_checks_only=type_checks_only,
            instance_attributes=instance_attributes,
        )
        overlap = (module.members & (set(module.excluded) | module.submodules)) | (
            set(module.excluded) & module.submodules
        )
        if overlap:
            raise PolicyError(
                f"modules.{name}: {sorted(overlap)} listed in more than one of members, "
                "excluded and submodules"
            )
        out[name] = module
    for key, sub in table.items():
        if key not in _MODULE_KEYS:
            _collect_modules(f"{name}.{key}", sub, out)


def _instance_attributes(value: Any, members: frozenset[str],
                         where: str) -> Mapping[str, frozenset[str]]:
    """`{Member = ["attribute", ...]}`: each key a member of the module, each attribute a
    public name."""
    if value is None:
        return MappingProxyType({})
    if not isinstance(value, dict):
        raise PolicyError(f"{where} must be a table of member = [\"attribute\", ...]")
    out: dict[str, frozenset[str]] = {}
    for member, attributes in value.items():
        names = _str_set(attributes, f"{where}.{member}")
        if member not in members:
            raise PolicyError(f"{where}.{member}: not a member of the module")
        if any(not name or name.startswith("_") for name in names):
            raise PolicyError(f"{where}.{member}: attributes are public names")
        out[member] = names
    return MappingProxyType(out)


def default_allowlist_path() -> Path:
    from pathlib import Path

    return Path(_default_allowlist_file())


def _default_allowlist_file() -> str:
    # os.path, not pathlib: pathlib (and the urllib.parse and ipaddress it imports) is ~3 ms
    # of every start-up that loads the gate.
    env = os.environ.get(ALLOWLIST_ENV)
    if env:
        return env
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    packaged = os.path.join(package, "allowlist.toml")
    if os.path.isfile(packaged):
        return packaged
    return os.path.join(os.path.dirname(package), "allowlist.toml")


def load_policy(path: str | os.PathLike[str] | None = None) -> Policy:
    target = os.fspath(path) if path is not None else _default_allowlist_file()
    try:
        # a regular file only: a FIFO or a device named as the allow-list never ends a read
        with open_regular(target) as handle:
            data = handle.read()
    except OSError as exc:
        raise PolicyError(f"cannot read allow-list {target}: {exc.strerror or exc}") from exc
    return _cached_parse(data, target)


@cache
def _cached_parse(data: bytes, path: str) -> Policy:
    return parse_policy(data, path)
