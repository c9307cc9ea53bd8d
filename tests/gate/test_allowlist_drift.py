"""The default allow-list against the running Python: every public name judged, no escape route.

The gate never imports a module; these tests do, to check that `allowlist.toml` still describes
the modules it names. When a Python release adds or drops a public name, the partition test fails
and lists every added and dropped name per module, so a reviewer decides each one (add it to
`members`, or to `excluded` with a reason) instead of it becoming reachable by default.

A module dyntools provides (`host`, provider = "dyntools") is not Python's: no test imports
it by that name (a site-packages or test package called `host` is not it); its members and
the capability each needs are pinned here instead.
"""

from __future__ import annotations

import builtins
import collections
import csv
import datetime
import decimal
import difflib
import enum
import functools
import hashlib
import heapq
import importlib
import importlib.util
import ipaddress
import json
import os
import pkgutil
import queue
import re
import statistics
import subprocess
import sys
import textwrap
import tomllib
import types
import typing
import urllib.parse
import uuid
import zoneinfo
from collections.abc import Iterator
from pathlib import Path

import pytest

from dyntools.gate.policy import ModulePolicy, Policy, load_policy

# fmt: off
DEFAULT_MODULES = frozenset(
    {
        "math", "cmath", "re", "json", "string", "datetime", "time", "calendar", "zoneinfo",
        "decimal", "fractions", "statistics", "random", "itertools", "functools", "collections",
        "heapq", "bisect", "textwrap", "unicodedata", "difflib", "hashlib", "hmac", "base64",
        "binascii", "uuid", "urllib.parse", "html", "csv", "ipaddress", "copy", "pprint",
        "typing", "zlib", "operator", "collections.abc", "queue",
    }
)
# fmt: on

# Modules dyntools provides to the worker, with each member and the CAPABILITIES kind it needs.
PROVIDED_MODULES: dict[str, dict[str, str]] = {
    "host": {"HttpError": "http", "ToolError": "tools", "call_tool": "tools",
             "http_get": "http", "http_post_json": "http"},
}

# Members that must stay refused, and why. Removing an exclusion from allowlist.toml (or moving
# the name into `members`) fails test_escape_routes_stay_excluded; keep this table in step with
# DESIGN.md section 3.
ESCAPE_ROUTES: dict[tuple[str, str], str] = {
    # published escape routes against peers (RestrictedPython, simpleeval, smolagents, asteval)
    ("operator", "attrgetter"): "reads attributes named by strings, dunders included",
    ("operator", "methodcaller"): "calls methods named by strings",
    ("operator", "call"): "glue of the published simpleeval operator chain",
    ("string", "Formatter"): "format strings resolve attribute paths",
    ("typing", "get_type_hints"): "evaluates annotation strings",
    ("typing", "ForwardRef"): "holds an annotation string get_type_hints evaluates",
    ("typing", "get_origin"): "get_origin(typing.Type) returns the builtin type",
    ("functools", "singledispatch"): "register() evaluates annotation strings",
    ("functools", "singledispatchmethod"): "register() evaluates annotation strings",
    ("functools", "update_wrapper"): "reads and writes attributes named by strings",
    ("functools", "wraps"): "reads and writes attributes named by strings",
    ("copy", "dispatch_table"): "deepcopy reducers end in setattr by string",
    # subprocesses, files, host and process-wide state
    ("uuid", "uuid1"): "may start a subprocess (getnode)",
    ("uuid", "getnode"): "may start a subprocess",
    ("zoneinfo", "reset_tzpath"): "process-wide state and a file-existence oracle",
    ("zoneinfo", "available_timezones"): "walks the file system",
    ("time", "tzset"): "process-wide local time",
    ("time", "clock_settime"): "sets a host clock",
    ("time", "clock_settime_ns"): "sets a host clock",
    ("calendar", "main"): "reads sys.argv and prints",
    ("calendar", "different_locale"): "locale.setlocale: process-wide",
    ("calendar", "LocaleTextCalendar"): "locale.setlocale: process-wide",
    ("calendar", "LocaleHTMLCalendar"): "locale.setlocale: process-wide",
    ("csv", "field_size_limit"): "process-wide parser limit",
    ("hashlib", "file_digest"): "made for real files; hands out a memoryview",
    ("base64", "main"): "reads sys.argv and stdin",
    ("base64", "test"): "runs main",
    # writers to the worker's real stdout/stderr
    ("calendar", "prcal"): "prints",
    ("calendar", "prmonth"): "prints",
    ("calendar", "prweek"): "prints",
    ("calendar", "format"): "prints",
    ("pprint", "pprint"): "prints",
    ("pprint", "pp"): "prints",
    ("re", "DEBUG"): "compiling with it prints",
    ("typing", "reveal_type"): "writes to stderr",
    # interpreter internals
    ("datetime", "datetime_CAPI"): "C capsule",
    # metaclasses and class builders
    ("typing", "ABCMeta"): "metaclass",
    ("typing", "NamedTupleMeta"): "metaclass",
    ("typing", "NamedTuple"): "class builder",
    ("typing", "TypedDict"): "class builder",
    ("typing", "NewType"): "type builder",
    ("typing", "Protocol"): "class machinery",
    ("typing", "Generic"): "class machinery",
    ("typing", "TypeVar"): "generic machinery",
    ("typing", "ParamSpec"): "generic machinery",
    ("typing", "TypeVarTuple"): "generic machinery",
    ("collections", "namedtuple"): "class builder",
    ("statistics", "namedtuple"): "class builder (re-export)",
    ("functools", "namedtuple"): "class builder (re-export)",
    ("urllib.parse", "namedtuple"): "class builder (re-export)",
    ("uuid", "Enum"): "Enum base (re-export)",
    ("uuid", "SafeUUID"): "Enum class",
    ("re", "RegexFlag"): "Enum class",
    ("functools", "total_ordering"): "class decorator",
    ("functools", "cached_property"): "class-body descriptor",
    ("functools", "partialmethod"): "class-body descriptor",
    # decorators that write attributes or registries the gate never sees
    ("typing", "final"): "writes __final__ on its argument",
    ("typing", "dataclass_transform"): "writes an attribute on its argument",
    ("typing", "no_type_check"): "writes attributes on its argument",
    ("typing", "abstractmethod"): "writes an attribute on its argument",
    ("typing", "overload"): "process-wide registry",
    ("typing", "get_overloads"): "process-wide registry",
    ("typing", "clear_overloads"): "process-wide registry",
}

# A sample of what realistic tools use: excluding one of these is a false positive.
COMMONLY_USED: dict[str, frozenset[str]] = {
    "re": frozenset({"sub", "compile", "findall", "IGNORECASE", "escape", "Pattern"}),
    "json": frozenset({"dumps", "loads", "JSONDecodeError"}),
    "datetime": frozenset({"datetime", "date", "timedelta", "timezone"}),
    "collections": frozenset({"Counter", "defaultdict", "OrderedDict", "deque"}),
    "functools": frozenset({"reduce", "lru_cache", "cache", "partial", "cmp_to_key"}),
    "itertools": frozenset({"chain", "groupby", "islice", "product", "combinations"}),
    "math": frozenset({"sqrt", "floor", "ceil", "isclose", "pi", "inf"}),
    "hashlib": frozenset({"sha256", "md5", "new"}),
    "base64": frozenset({"b64encode", "b64decode", "urlsafe_b64encode"}),
    "urllib.parse": frozenset({"quote", "urlencode", "urlparse", "parse_qs", "urljoin"}),
    "textwrap": frozenset({"wrap", "dedent", "fill", "shorten"}),
    "difflib": frozenset({"SequenceMatcher", "unified_diff", "get_close_matches"}),
    "statistics": frozenset({"mean", "median", "stdev", "pstdev"}),
    "decimal": frozenset({"Decimal", "ROUND_HALF_UP", "localcontext"}),
    "typing": frozenset({"Any", "Optional", "List", "Dict", "Union", "Callable", "Iterable"}),
    "string": frozenset({"ascii_letters", "digits", "Template", "capwords"}),
    "csv": frozenset({"reader", "writer", "DictReader", "DictWriter", "StringIO"}),
    "uuid": frozenset({"uuid4", "uuid5", "UUID", "NAMESPACE_DNS"}),
    "zoneinfo": frozenset({"ZoneInfo"}),
    "operator": frozenset({"itemgetter", "add", "mul"}),
    "pprint": frozenset({"pformat"}),
    "calendar": frozenset({"monthrange", "isleap", "month_name", "TextCalendar"}),
}

# Objects whose identity is shared by accident (interned values), not by re-export.
_VALUE_TYPES = (int, float, complex, str, bytes, bool, tuple, frozenset, type(None))
# A listed name Python no longer has: reported by the partition test, skipped elsewhere.
_MISSING = object()


@pytest.fixture(scope="module")
def policy() -> Policy:
    return load_policy()


def public_names(module: types.ModuleType) -> set[str]:
    """`dir()` without underscores, plus public sub-modules, which `dir` only shows once imported."""
    names = {name for name in dir(module) if not name.startswith("_")}
    search_path = getattr(module, "__path__", None)
    if search_path is not None:
        names |= {
            info.name for info in pkgutil.iter_modules(search_path) if not info.name.startswith("_")
        }
    return names


def is_metaclass(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, type)


def allowed_objects(policy: Policy, only: str | None = None) -> Iterator[tuple[str, object]]:
    for name, module_policy in sorted(policy.python_modules.items()):
        if only is not None and name != only:
            continue
        module = importlib.import_module(name)
        for member in sorted(module_policy.members):
            value = getattr(module, member, _MISSING)
            if value is not _MISSING:
                yield f"{name}.{member}", value


def excluded_objects(policy: Policy) -> Iterator[tuple[str, object]]:
    for name, module_policy in sorted(policy.python_modules.items()):
        module = importlib.import_module(name)
        for member in sorted(module_policy.excluded):
            value = getattr(module, member, _MISSING)
            if value is not _MISSING:
                yield f"{name}.{member}", value


def test_the_default_policy_admits_exactly_the_documented_modules(policy: Policy) -> None:
    admitted = set(policy.python_modules)
    assert admitted == DEFAULT_MODULES, (
        f"added: {sorted(admitted - DEFAULT_MODULES)}; "
        f"dropped: {sorted(DEFAULT_MODULES - admitted)}"
    )
    assert set(policy.modules) == DEFAULT_MODULES | set(PROVIDED_MODULES)


@pytest.mark.parametrize("name", sorted(PROVIDED_MODULES))
def test_provided_modules_are_pinned_member_by_member(policy: Policy, name: str) -> None:
    module_policy = policy.modules[name]
    assert module_policy.provider == "dyntools"
    assert policy.provided_modules == frozenset(PROVIDED_MODULES)
    assert dict(module_policy.requires) == PROVIDED_MODULES[name], (
        f"[modules.{name}] members or their capabilities changed: review the host module's "
        "surface (the broker enforces each one) and update PROVIDED_MODULES"
    )
    assert module_policy.members == set(PROVIDED_MODULES[name])
    assert not module_policy.excluded and not module_policy.submodules
    assert name not in policy.python_modules


@pytest.mark.parametrize("name", sorted(DEFAULT_MODULES))
def test_members_submodules_and_excluded_partition_the_public_names(
    policy: Policy, name: str
) -> None:
    module_policy = policy.modules[name]
    public = public_names(importlib.import_module(name))
    groups = {
        "members": set(module_policy.members),
        "submodules": set(module_policy.submodules),
        "excluded": set(module_policy.excluded),
    }
    listed_twice = {
        member: sorted(group for group, names in groups.items() if member in names)
        for member in set().union(*groups.values())
        if sum(member in names for names in groups.values()) > 1
    }
    declared = set().union(*groups.values())
    added, dropped = sorted(public - declared), sorted(declared - public)
    assert not (added or dropped or listed_twice), (
        f"allowlist.toml [modules.{name}] has drifted from Python's {name}:\n"
        f"  added by Python, judged nowhere (add to members or excluded): {added}\n"
        f"  listed in allowlist.toml, gone from Python: {dropped}\n"
        f"  listed in more than one group: {listed_twice}"
    )


@pytest.mark.parametrize("name", sorted(DEFAULT_MODULES))
def test_no_allowed_member_is_a_module_a_metaclass_or_a_capsule(policy: Policy, name: str) -> None:
    wrong = {}
    for dotted, value in allowed_objects(policy, only=name):
        member = dotted.rsplit(".", 1)[1]
        if isinstance(value, types.ModuleType):
            wrong[member] = "a module object"
        elif is_metaclass(value):
            wrong[member] = "a metaclass"
        elif isinstance(value, enum.EnumType):
            wrong[member] = "an Enum class (its metaclass builds classes)"
        elif type(value).__name__ == "PyCapsule":
            wrong[member] = "a C capsule"
    assert not wrong, f"{name}: members that must not be reachable: {wrong}"


@pytest.mark.parametrize("name", sorted(DEFAULT_MODULES))
def test_every_submodule_entry_is_a_module(policy: Policy, name: str) -> None:
    module = importlib.import_module(name)
    not_modules = []
    for sub in sorted(policy.modules[name].submodules):
        value = getattr(module, sub, None)
        if isinstance(value, types.ModuleType):
            continue
        # A package's sub-module that nothing has imported yet is not an attribute.
        is_package = hasattr(module, "__path__")
        if value is None and is_package and importlib.util.find_spec(f"{name}.{sub}"):
            continue
        not_modules.append(sub)
    assert not not_modules, f"{name}: submodules entries that are not modules: {not_modules}"


@pytest.mark.parametrize(("module", "member"), sorted(ESCAPE_ROUTES))
def test_escape_routes_stay_excluded(policy: Policy, module: str, member: str) -> None:
    module_policy: ModulePolicy = policy.modules[module]
    why = ESCAPE_ROUTES[(module, member)]
    assert member not in module_policy.members, f"{module}.{member} is allowed but {why}"
    assert module_policy.reason_excluded(member), (
        f"{module}.{member} must stay in [modules.{module}.excluded] with a reason ({why})"
    )


def test_no_escape_route_is_reachable_under_another_name(policy: Policy) -> None:
    routes = {
        id(value): f"{module}.{member}"
        for module, member in ESCAPE_ROUTES
        if (value := getattr(importlib.import_module(module), member, _MISSING)) is not _MISSING
    }
    aliases = {
        dotted: routes[id(value)]
        for dotted, value in allowed_objects(policy)
        if id(value) in routes and not isinstance(value, _VALUE_TYPES)
    }
    assert not aliases, f"allowed members that are escape routes re-exported: {aliases}"


def test_a_reexport_is_judged_the_same_in_every_module(policy: Policy) -> None:
    refused = {
        id(value): dotted
        for dotted, value in excluded_objects(policy)
        if not isinstance(value, _VALUE_TYPES)
    }
    inconsistent = {
        dotted: refused[id(value)]
        for dotted, value in allowed_objects(policy)
        if id(value) in refused and not isinstance(value, _VALUE_TYPES)
    }
    assert not inconsistent, f"allowed here, refused as the same object elsewhere: {inconsistent}"


def test_every_exclusion_gives_a_reason_worth_reading(policy: Policy) -> None:
    terse = {
        f"{name}.{member}": why
        for name, module_policy in policy.modules.items()
        for member, why in module_policy.excluded.items()
        if len(why.split()) < 4
    }
    assert not terse, f"exclusions need a reason a reviewer can act on: {terse}"


@pytest.mark.parametrize("name", sorted(COMMONLY_USED))
def test_commonly_used_members_stay_allowed(policy: Policy, name: str) -> None:
    missing = sorted(COMMONLY_USED[name] - policy.modules[name].members)
    assert not missing, f"{name}: refusing these would break realistic tools: {missing}"


def test_member_lists_are_sorted_in_the_file(policy: Policy) -> None:
    raw = tomllib.loads(Path(policy.path).read_text(encoding="utf-8"))

    def tables(prefix: str, table: dict[str, object]) -> Iterator[tuple[str, dict[str, object]]]:
        if "members" in table:
            yield prefix, table
        for key, sub in table.items():
            if isinstance(sub, dict) and key != "excluded":
                yield from tables(f"{prefix}.{key}" if prefix else key, sub)

    unsorted = [
        f"{name}.{key}"
        for name, table in tables("", raw["modules"])
        for key in ("members", "submodules")
        if isinstance(table.get(key), list) and table[key] != sorted(table[key])
    ]
    assert not unsorted, f"lists to keep sorted (reviewers diff them): {unsorted}"


def typical_values() -> dict[str, object]:
    """Objects a tool gets back from allowed members, to walk as well as the members."""
    return {
        "re.compile(...)": re.compile("(?P<x>a)"),
        "re.match(...)": re.match("a", "a"),
        "re.finditer(...)": re.finditer("a", "aa"),
        "json.JSONDecoder()": json.JSONDecoder(),
        "json.JSONDecodeError(...)": json.JSONDecodeError("m", "d", 0),
        "decimal.Context()": decimal.Context(),
        "decimal.localcontext()": decimal.localcontext(),
        "difflib.SequenceMatcher(...)": difflib.SequenceMatcher(None, "ab", "ac"),
        "difflib.unified_diff(...)": difflib.unified_diff(["a"], ["b"]),
        "heapq.merge(...)": heapq.merge([1], [2]),
        "datetime.datetime.now()": datetime.datetime.now(datetime.UTC),
        "functools.partial(len)": functools.partial(len),
        "functools.lru_cache(len)": functools.lru_cache(len),
        "functools.cmp_to_key(len)(1)": functools.cmp_to_key(len)(1),
        "textwrap.TextWrapper()": textwrap.TextWrapper(),
        "csv.writer(csv.StringIO())": csv.writer(csv.StringIO()),
        "csv.DictReader([])": csv.DictReader([]),
        "zoneinfo.ZoneInfo('UTC')": zoneinfo.ZoneInfo("UTC"),
        "hashlib.sha256()": hashlib.sha256(),
        "uuid.uuid4()": uuid.uuid4(),
        "ipaddress.ip_network(...)": ipaddress.ip_network("10.0.0.0/8"),
        "statistics.NormalDist()": statistics.NormalDist(),
        "typing.Optional[int]": typing.Optional[int],  # noqa: UP045 (the alias object itself)
        "typing.Callable[[int], int]": typing.Callable[[int], int],
        "urllib.parse.urlparse(...)": urllib.parse.urlparse("http://u:p@h/p?q#f"),
        "collections.ChainMap()": collections.ChainMap(),
        "collections.UserDict()": collections.UserDict(),
        "queue.Queue()": queue.Queue(),
    }


def test_public_attributes_never_lead_to_a_module_frame_or_refused_object(policy: Policy) -> None:
    """Walk `x.attr` chains (the gate's attribute rules applied) from every allowed member."""

    def reachable_by_attribute(attr: str) -> bool:
        return not (attr.startswith("_") or policy.attribute_denial(attr) is not None)

    refused = {
        id(getattr(builtins, name)): f"builtin {name}"
        for name in policy.denied_builtins
        if hasattr(builtins, name)
    }
    refused.update(
        (id(value), f"excluded {dotted}")
        for dotted, value in excluded_objects(policy)
        if not isinstance(value, _VALUE_TYPES)
    )

    def verdict(value: object) -> str | None:
        if isinstance(value, types.ModuleType):
            return f"module {value.__name__}"
        if isinstance(value, types.FrameType | types.CodeType | types.TracebackType):
            return "frame, code or traceback"
        if is_metaclass(value):
            return "a metaclass"
        return refused.get(id(value))

    roots = dict(allowed_objects(policy))
    roots.update(typical_values())
    pending = [(path, value, 4) for path, value in roots.items()]
    seen: dict[int, object] = {}  # holds each value so its id is not reused
    found: dict[str, str] = {}
    while pending:
        path, value, depth = pending.pop(0)
        why = verdict(value)
        if why is not None:
            found[path] = why
            continue
        if id(value) in seen or depth == 0:
            continue
        seen[id(value)] = value
        for attr in dir(value):
            if not reachable_by_attribute(attr):
                continue
            try:
                child = getattr(value, attr)
            except Exception:  # properties that raise are not a route
                continue
            pending.append((f"{path}.{attr}", child, depth - 1))
    assert not found, f"reachable through public attributes: {found}"


def test_no_allowed_call_hands_back_a_module_metaclass_or_refused_object(policy: Policy) -> None:
    """Call every allowed member with small arguments, in a child process (calls change state)."""
    script = Path(__file__).with_name("allowlist_callfuzz.py")
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run(
        [sys.executable, str(script), policy.path],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["results"] > 10_000, "the fuzz barely ran: did the argument pool break?"
    assert not report["hits"], f"allowed calls that hand back refused objects: {report['hits']}"
