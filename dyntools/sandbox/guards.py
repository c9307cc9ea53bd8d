"""Layer 2 at run time: the guards RestrictedPython-compiled tool code calls (worker side).

Every guard is O(1) and refuses by ending the call at once: `Guards.stop` reports
`sandbox_violation` on the protocol pipe and exits the process, so a tool cannot catch the
refusal and try something else. This module imports nothing; the worker's start-up time is
the cold-call budget.

What the guards refuse:
- attribute names that start with `_` or that the policy denies (exact names and prefixes);
- attribute values that are modules, frames, code objects or tracebacks, classes made by a
  metaclass (class factories such as Enum's functional API), metaclasses, and the escape-route
  members the policy excludes (`functools.wraps`, `typing.get_type_hints`, ...), whichever
  object they are reached through;
- attribute writes and deletes (`_write_`);
- imports of modules or members that are not on the allow-list. An allowed import yields a
  `ModuleView`: a fresh object holding only the allowed members, never the module itself.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # the worker must not pay for importing typing or collections.abc
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any, NoReturn

_MISSING = object()


def _frame_type() -> type:
    return type(sys._getframe())


def _traceback_type() -> type:
    try:
        raise ValueError
    except ValueError as exc:
        return type(exc.__traceback__)


ModuleType = type(sys)
FunctionType = type(_frame_type)
CodeType = type(_frame_type.__code__)
BuiltinFunctionType = type(len)
FrameType = _frame_type()
TracebackType = _traceback_type()
IDENTITY_HASHED = frozenset({FunctionType, BuiltinFunctionType})


# Instances of these exact built-in types have no __dict__: their public attributes are the
# type's methods and number fields, never modules, frames, classes or escape routes, so the
# value checks are skipped for them (the name checks never are). This keeps `out.append(x)`
# in a hot loop cheap.
PLAIN_TYPES = frozenset({
    str, bytes, bytearray, int, float, complex, bool, list, tuple, dict, set, frozenset,
    range, slice, type(None),
})


class ModuleView:
    """What `import m` gives a tool: only the allowed members of `m`, as attributes."""

    __slots__ = ("__dict__",)

    def __repr__(self) -> str:
        return "<allowed module members>"


class Guards:
    """The guard functions of one worker, bound to its policy data and its report channel."""

    def __init__(
        self,
        *,
        stop: Callable[[str, str], NoReturn],
        denied_attributes: Iterable[str],
        denied_prefixes: Iterable[str],
        escape_objects: Iterable[tuple[str, Any]],
        max_output_bytes: int,
        denied_modules: Iterable[str] = (),
        real_import: Callable[..., Any] | None = None,
    ) -> None:
        self.stop = stop
        self.denied_attributes = frozenset(denied_attributes)
        self.denied_prefixes = tuple(denied_prefixes)
        self.checked_names: set[str] = set()
        self.escape_ids: dict[int, str] = {id(obj): label for label, obj in escape_objects}
        self.escape_keep = [obj for _, obj in escape_objects]
        self.max_output_bytes = max_output_bytes
        self.output: list[str] = []
        self.output_size = 0
        self.views: dict[str, ModuleView] = {}
        self.view_members: dict[str, frozenset[str]] = {}
        self.denied_modules = frozenset(denied_modules)
        self.real_import = real_import
        self.result_checks = self._result_checks()

    # -- results of attribute reads -------------------------------------------------------

    def _result_checks(self) -> dict[type, Callable[[Any, str], None]]:
        def refuse_kind(value: Any, name: str) -> None:
            self.stop("sandbox_violation", f"attribute {name!r} leads to a "
                      f"{type(value).__name__} object, which tools may not handle")

        def check_escape(value: Any, name: str) -> None:
            label = self.escape_ids.get(id(value))
            if label is not None:
                self.stop("sandbox_violation", f"{label} is an escape route and not allowed")

        def check_class(value: Any, name: str) -> None:
            check_escape(value, name)
            if issubclass(value, type):
                self.stop("sandbox_violation", f"attribute {name!r} is a metaclass")

        def refuse_factory(value: Any, name: str) -> None:
            self.stop("sandbox_violation", f"attribute {name!r} is a class built by a "
                      f"metaclass ({type(value).__name__}), a class factory")

        checks: dict[type, Callable[[Any, str], None]] = {
            ModuleType: refuse_kind,
            FrameType: refuse_kind,
            CodeType: refuse_kind,
            TracebackType: refuse_kind,
            FunctionType: check_escape,
            BuiltinFunctionType: check_escape,
            type: check_class,
        }
        for meta in _all_subclasses(type):
            checks.setdefault(meta, refuse_factory)
        return checks

    # -- the guard functions compiled code calls ------------------------------------------

    def getattr_guard(self) -> Callable[..., Any]:
        checked = self.checked_names
        check_name = self._check_name
        # Types whose values always need a closer look; everything else only needs the
        # escape-route identity test. Kept to set/dict lookups: this runs on every `a.b`.
        watched = frozenset(t for t in self.result_checks
                            if t not in (FunctionType, BuiltinFunctionType))
        inspect = self._inspect
        module_type = ModuleType
        # `id()` raises the audit event `builtins.id`, i.e. a call of the tripwire's Python
        # hook on every read (a third of the time of a loop over datetime fields). Functions
        # and built-in methods hash and compare by identity (a built-in method by the identity
        # of its `__self__`), so a frozenset finds them with no event and no tool code run;
        # only values of the other types an escape route has go through `_inspect`'s `id()`.
        by_identity = frozenset(obj for obj in self.escape_keep if type(obj) in IDENTITY_HASHED)
        id_types = frozenset(type(obj) for obj in self.escape_keep
                             if type(obj) not in IDENTITY_HASHED)
        closer_look = watched | id_types

        # A view holds only policy-approved members: no value checks either.
        plain = PLAIN_TYPES | {ModuleView}

        def _getattr_(obj: Any, name: str) -> Any:
            # RestrictedPython emits `_getattr_(obj, "name")` for every `obj.name` load.
            if name not in checked:
                check_name(name)
            if type(obj) in plain:
                return getattr(obj, name)  # built-in values' methods, a view's members
            value = getattr(obj, name)
            kind = type(value)
            if (kind in closer_look or type(obj) is module_type
                    or (kind in IDENTITY_HASHED and value in by_identity)):
                inspect(obj, value, name)
            return value

        return _getattr_

    def _inspect(self, obj: Any, value: Any, name: str) -> None:
        if type(obj) is ModuleType:
            self.stop("sandbox_violation", f"attribute {name!r} of a module object: tools get "
                      "modules only through import, as views of their allowed members")
        check = self.result_checks.get(type(value))
        if check is not None:
            check(value, name)
        label = self.escape_ids.get(id(value))
        if label is not None:
            self.stop("sandbox_violation", f"{label} is an escape route and not allowed")

    def _check_name(self, name: str) -> None:
        if type(name) is not str:
            self.stop("sandbox_violation", "attribute names must be strings")
        if name.startswith("_"):
            self.stop("sandbox_violation", f"attribute {name!r} starts with an underscore")
        if name in self.denied_attributes or name.startswith(self.denied_prefixes):
            self.stop("sandbox_violation", f"attribute {name!r} is denied by the policy")
        self.checked_names.add(name)

    def write_guard(self) -> Callable[[Any], NoReturn]:
        def _write_(obj: Any) -> NoReturn:
            self.stop("sandbox_violation", "tools may not write or delete attributes")

        return _write_

    def apply_guard(self) -> Callable[..., Any]:
        def _apply_(func: Any, *args: Any, **kwargs: Any) -> Any:
            return func(*args, **kwargs)

        return _apply_

    # -- imports ---------------------------------------------------------------------------

    def add_module(self, dotted: str, module: Any, members: Iterable[str]) -> None:
        view = self._view(dotted)
        allowed = []
        for member in members:
            value = getattr(module, member, _MISSING)
            # Escape routes never enter a view, even if a policy lists them.
            # A module never enters a view: allowed submodules get views of their own.
            if (value is not _MISSING and not member.startswith("_")
                    and id(value) not in self.escape_ids and type(value) is not ModuleType):
                view.__dict__[member] = value
                allowed.append(member)
        self.view_members[dotted] = frozenset(allowed)

    def _view(self, dotted: str) -> ModuleView:
        view = self.views.get(dotted)
        if view is None:
            view = ModuleView()
            self.views[dotted] = view
            parent, _, child = dotted.rpartition(".")
            if parent:
                self._view(parent).__dict__[child] = view
        return view

    def import_guard(self) -> Callable[..., Any]:
        views = self.views
        members = self.view_members
        denied = self.denied_modules
        real_import = self.real_import

        def __import__(
            name: str,
            globals: Mapping[str, Any] | None = None,
            locals: Mapping[str, Any] | None = None,
            fromlist: Iterable[str] | None = (),
            level: int = 0,
        ) -> Any:
            if level != 0 or type(name) is not str:
                self.stop("sandbox_violation", "relative imports are not allowed")
            if type(fromlist) is list and not fromlist and real_import is not None:
                # C code called from tool code (`datetime.strptime` importing `_strptime`)
                # imports through the caller's builtins with an empty *list*; the import
                # statement passes None or a tuple, and tools cannot call __import__
                # themselves. The module goes to that C code, not to the tool.
                if name.partition(".")[0] in denied:
                    self.stop("sandbox_violation", f"import of {name!r} is not allowed")
                return real_import(name, globals, locals, fromlist, level)
            allowed = members.get(name)
            if allowed is None:
                self.stop("sandbox_violation", f"import of {name!r} is not allowed")
            if fromlist:
                for member in fromlist:
                    if member not in allowed:
                        self.stop("sandbox_violation",
                                  f"import of {name}.{member} is not allowed")
                return views[name]
            return views[name.partition(".")[0]]

        return __import__

    # -- output ------------------------------------------------------------------------------

    def print_function(self) -> Callable[..., None]:
        output = self.output

        def print(*args: Any, sep: str | None = " ", end: str | None = "\n",
                  file: Any = None, flush: bool = False) -> None:
            if file is not None:
                self.stop("sandbox_violation", "print(file=...) is not allowed")
            sep = " " if sep is None else sep
            end = "\n" if end is None else end
            if type(sep) is not str or type(end) is not str:
                raise TypeError("sep and end must be strings")
            text = sep.join([str(a) for a in args]) + end
            self.output_size += len(text.encode("utf-8", "surrogatepass"))
            if self.output_size > self.max_output_bytes:
                self.stop("bad_result",
                          f"the tool printed more than {self.max_output_bytes} bytes")
            output.append(text)

        return print

    def take_output(self) -> str:
        text = "".join(self.output)
        self.output.clear()
        self.output_size = 0
        return text


def _all_subclasses(cls: type) -> list[type]:
    seen: list[type] = []
    stack: list[type] = list(type.__subclasses__(cls))
    while stack:
        sub = stack.pop()
        if sub not in seen:
            seen.append(sub)
            stack.extend(type.__subclasses__(sub))
    return seen


def safe_builtins(names: Iterable[str], guards: Guards) -> dict[str, Any]:
    """The builtins a tool sees: the policy's names, our print, the import guard."""
    import builtins

    table: dict[str, Any] = {}
    for name in names:
        value = getattr(builtins, name, _MISSING)
        if value is not _MISSING:
            table[name] = value
    table["print"] = guards.print_function()
    table["__import__"] = guards.import_guard()
    return table
