"""Layer 2 at run time: the guards RestrictedPython-compiled tool code calls (worker side).

Every guard refuses by ending the call at once: `Guards.stop` reports `sandbox_violation` on
the protocol pipe and exits the process, so a tool cannot catch the refusal and try something
else. This module imports nothing; the worker's start-up time is the cold-call budget.

Every guard fails closed: the check runs before the operation, or the value is checked before
it is handed over, so an exception inside a check (RecursionError at the edge of the stack,
MemoryError, a `stop` that could not run) propagates instead of the operation's result. The
guard then also sets `Guards.failed` (a plain store, which cannot fail), and the worker ends
after that call: the worker is spent. Errors of the operation itself (`getattr` of a missing
attribute, a call that raises) are the tool's and change nothing.

Where values enter tool code, and what checks them:
- `import`: the import guard gives a `ModuleView` holding only the allowed members;
- `obj.name` (`_getattr_`): names starting with `_` or denied by the policy, and the value;
- calls whose callee may be library code (`_call_`, also `_apply_` for `f(*a, **k)`): keys of
  `**` mappings, a class as the callee, and the value returned;
- items out of containers a library may have filled (`_getitem_`, `_getiter_`, unpacking)
  and arguments library code passes to the tool's callbacks (`_args_`);
- writes and deletes of attributes always end the call (`_write_`);
- `type(x) == int` is compiled to `_type_(x) == int` (`_type_`): the class of a value, when
  it is one a tool may hold (a builtin type, an allowed member), else `ForeignType`, which no
  builtin type equals; tools have no `type` builtin.

Beyond the policy's names, `_getattr_` refuses two things by the object: `register` on an
ABC (any `ABCMeta` instance, and anything whose `register` is an ABC's, such as a `typing`
alias), which would change isinstance answers for the whole worker whatever a custom
allow-list denies; and, for the classes the allow-list limits (`instance_attributes`: a
`queue.Queue`), every attribute of their instances but the listed ones (not its lock and
condition variables).
`restrict` and `flow` decide where these calls are compiled in.

`check_value` refuses every value a tool must never hold: modules, code, frames, tracebacks,
cells, generator frames' owners' internals, descriptors and property objects (their `fset`
writes onto any object; a `cached_property`'s lock is shared process-wide), weak references,
`ForwardRef`s, the worker's own objects, classes that are not allowed members or builtins
(`type` itself, metaclasses, anything built at run time), Python functions that are neither
allowed members nor the tool's own (an unbound library method accepts a foreign `self`),
built-in functions of modules that are not allowed members, and the policy's escape routes.
Values of the plain built-in types pass on a set lookup: this is the hot path.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # the worker must not pay for importing typing or collections.abc
    from collections.abc import Callable, Iterable, Iterator, Mapping
    from typing import Any, NoReturn

_MISSING = object()


def _frame_type() -> type:
    return type(sys._getframe())


def _traceback_type() -> type:
    try:
        raise ValueError
    except ValueError as exc:
        return type(exc.__traceback__)


def _cell_type() -> type:
    inner = 0

    def read() -> int:
        return inner

    return type(read.__closure__[0])  # type: ignore[index]


ModuleType = type(sys)
FunctionType = type(_frame_type)
CodeType = type(_frame_type.__code__)
BuiltinFunctionType = type(len)
FrameType = _frame_type()
TracebackType = _traceback_type()
CellType = _cell_type()
GetSetDescriptorType = type(FunctionType.__dict__["__code__"])
MemberDescriptorType = type(FunctionType.__dict__["__globals__"])
# Objects of these kinds hash and compare by identity (a built-in method by its `__self__`'s),
# so set lookups find them with no `id()` call: `id` raises an audit event, one call of the
# tripwire's Python hook on each check.
IDENTITY_HASHED = frozenset({FunctionType, BuiltinFunctionType})

# Kinds of objects a tool may never hold, whatever it got them from.
FORBIDDEN_TYPES = frozenset({
    ModuleType, CodeType, FrameType, TracebackType, CellType,
    GetSetDescriptorType, MemberDescriptorType, property, classmethod, staticmethod, super,
})


# Instances of these exact built-in types have no __dict__: their public attributes are the
# type's methods and number fields, never modules, frames, classes or escape routes, so the
# value checks are skipped for them (the name checks never are). This keeps `out.append(x)`
# in a hot loop cheap.
PLAIN_TYPES = frozenset({
    str, bytes, bytearray, int, float, complex, bool, list, tuple, dict, set, frozenset,
    range, type(None),
})
# (`slice` is not here: its start, stop and step can be any object.)


class ModuleView:
    """What `import m` gives a tool: only the allowed members of `m`, as attributes."""

    __slots__ = ("__dict__",)

    def __repr__(self) -> str:
        return "<allowed module members>"


MethodType = type(ModuleView().__repr__)  # a method bound to an instance of a Python class


class ForeignType:
    """What `_type_` answers for a value whose class a tool may not hold: equal to no builtin
    type, so `type(x) == int` is as false as it is for the real class. Never instantiated."""


def _abc_meta() -> type | None:
    """`abc.ABCMeta` (the interpreter imports `abc` at start-up: no import cost here)."""
    meta = getattr(sys.modules.get("abc"), "ABCMeta", None)
    return meta if isinstance(meta, type) else None


ABCMeta = _abc_meta()
# Attributes refused on some objects whatever the policy says (`Guards.object_attribute`):
# never cached as checked names, so each read is judged with its object.
BY_OBJECT = frozenset({"register"})


def _identity_kind(kind: type) -> bool:
    return kind in IDENTITY_HASHED or issubclass(kind, type)
CHECKED_PLAIN = PLAIN_TYPES | {ModuleView}


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
        tool_globals: dict[str, Any] | None = None,
    ) -> None:
        self.stop = stop
        self.denied_attributes = frozenset(denied_attributes)
        self.denied_prefixes = tuple(denied_prefixes)
        self.checked_names: set[str] = set()
        escape_objects = list(escape_objects)
        self.escape_ids: dict[int, str] = {id(obj): label for label, obj in escape_objects}
        self.escape_keep = [obj for _, obj in escape_objects]
        self.escape_by_identity: dict[Any, str] = {
            obj: label for label, obj in escape_objects if _identity_kind(type(obj))}
        self.escape_id_types = frozenset(
            type(obj) for _, obj in escape_objects if not _identity_kind(type(obj)))
        self.max_output_bytes = max_output_bytes
        self.output: list[str] = []
        self.output_size = 0
        self.views: dict[str, ModuleView] = {}
        self.view_members: dict[str, frozenset[str]] = {}
        self.denied_modules = frozenset(denied_modules)
        self.real_import = real_import
        # What a tool may hold beyond plain values: allowed members and builtins (classes
        # and functions among them), and the functions of its own module.
        self.allowed: set[Any] = set()  # functions, built-ins and classes (by identity)
        # Ids of the code objects nested in allowed functions (their closures); code objects
        # compare by value, so they are kept and looked up by identity.
        self.allowed_code_ids: dict[int, Any] = {}
        self.forbidden_types: set[type] = set(FORBIDDEN_TYPES)
        self.tool_globals = tool_globals
        # Types whose instances passed `check_value` and always will (not functions, classes,
        # forbidden or escape kinds): later values of these types pass on a set lookup.
        self.safe_values: set[type] = set(CHECKED_PLAIN)
        # The same, less the kinds of the escape routes that are data (a tuple of names):
        # those are refused where they are reached, through an attribute.
        self.attr_safe_values: set[type] = self.safe_values - self.escape_id_types
        self.tripwire: Any = None  # set by the worker: reading __globals__ is an audit event
        # An exception escaped a check during this call (the operation was refused): the
        # worker ends after the call (see the module docstring).
        self.failed = False
        # class -> the only attributes a tool may read on its instances (`limit_instances`).
        self.instance_attributes: dict[type, frozenset[str]] = {}

    # -- what a tool may hold ---------------------------------------------------------------

    def allow(self, value: Any) -> None:
        """`value` (an allowed member or builtin) may be held, called and passed around.
        A function made by an allowed function (`functools.lru_cache(maxsize=None)` returns
        its `decorating_function`) may be too: its code is among the allowed one's."""
        if not _identity_kind(type(value)):
            return  # not a function or class: the kind checks decide
        self.allowed.add(value)
        if type(value) is FunctionType:
            stack = [value.__code__]
            while stack:
                code = stack.pop()
                for const in code.co_consts:
                    if type(const) is CodeType and id(const) not in self.allowed_code_ids:
                        self.allowed_code_ids[id(const)] = const
                        stack.append(const)

    def limit_instances(self, kind: type, attributes: Iterable[str]) -> None:
        """Instances of exactly `kind` expose only `attributes` to a tool (the allow-list's
        `instance_attributes`: a `queue.Queue`'s put and get, not its locks)."""
        self.instance_attributes[kind] = frozenset(attributes)

    def forbid_type(self, kind: type) -> None:
        """Instances of `kind` (the worker's own objects, ForwardRef, ...) are never handed
        to a tool."""
        self.forbidden_types.add(kind)
        self.safe_values.discard(kind)
        self.attr_safe_values.discard(kind)

    def check_value(self, value: Any) -> None:
        """End the call if `value` is something a tool must never hold (see the module
        docstring). Callers skip values whose type is in `safe_values`."""
        kind = type(value)
        if kind in self.escape_id_types:  # a plain tuple may be an escape route's data
            label = self.escape_ids.get(id(value))
        elif kind in self.safe_values:
            return
        elif _identity_kind(kind):
            label = self.escape_by_identity.get(value)
            if label is None and value in self.allowed:
                return
        else:
            label = None
        if label is not None:
            self.stop("sandbox_violation", f"{label} is an escape route and not allowed")
        if kind in self.forbidden_types:
            self.stop("sandbox_violation", f"a {kind.__name__} object is not for tools")
        if issubclass(kind, type):
            what = "a metaclass" if issubclass(value, type) else "a class"
            self.stop("sandbox_violation", f"{what} ({value.__name__}) that is not an allowed "
                      "member: tools may not hold classes made or reached at run time")
        if kind is FunctionType:
            if not self._is_tool_function(value):
                self.stop("sandbox_violation", f"function {value.__qualname__!r} is neither "
                          "an allowed member nor the tool's own")
        elif kind is BuiltinFunctionType:
            if type(value.__self__) is ModuleType:
                self.stop("sandbox_violation", f"built-in function {value.__name__!r} of "
                          "a module is not an allowed member")
        elif kind is MethodType:
            # Bound: the library function gets this `__self__`, never one the tool picks.
            self.check_value(value.__self__)
        elif kind not in self.escape_id_types and not _identity_kind(kind):
            self.safe_values.add(kind)
            self.attr_safe_values.add(kind)

    def _is_tool_function(self, value: Any) -> bool:
        tripwire = self.tripwire
        inside = tripwire.inside_tool if tripwire is not None else False
        if tripwire is not None:
            tripwire.inside_tool = False  # the reads below raise `object.__getattr__`
        try:
            return (value.__globals__ is self.tool_globals
                    or id(value.__code__) in self.allowed_code_ids)
        finally:
            if tripwire is not None:
                tripwire.inside_tool = inside

    def check_items(self, value: Any, depth: int) -> None:
        """`check_value` on the items of tuples and lists, `depth` levels down (unpacking)."""
        if depth > 0 and type(value) in (tuple, list):
            for item in value:
                if type(item) not in self.safe_values:
                    self.check_value(item)
                self.check_items(item, depth - 1)

    # -- the guard functions compiled code calls ------------------------------------------

    def getattr_guard(self) -> Callable[..., Any]:
        checked = self.checked_names
        check_name = self._check_name
        check_value = self.check_value
        module_type = ModuleType
        plain = CHECKED_PLAIN  # a view holds only policy-approved members
        safe = self.attr_safe_values
        builtin_method = BuiltinFunctionType
        bound_method = MethodType
        escapes = self.escape_by_identity
        bound_ok = MethodType not in self.escape_id_types
        limited = self.instance_attributes  # filled as modules are added: read at each call
        object_attribute = self.object_attribute

        def _getattr_(obj: Any, name: str) -> Any:
            # RestrictedPython emits `_getattr_(obj, "name")` for every `obj.name` load.
            if name not in checked:
                try:
                    check_name(name)
                    if name in BY_OBJECT:
                        object_attribute(obj, name)
                except BaseException:
                    self.failed = True
                    raise
            if type(obj) in plain:
                return getattr(obj, name)  # built-in values' methods, a view's members
            if type(obj) is module_type:
                self.failed = True
                self.stop("sandbox_violation", f"attribute {name!r} of a module object: tools "
                          "get modules only through import, as views of their allowed members")
            if limited and type(obj) in limited and name not in limited[type(obj)]:
                self.failed = True
                self.stop("sandbox_violation", f"attribute {name!r} of a "
                          f"{type(obj).__name__} is not for tools (only "
                          f"{', '.join(sorted(limited[type(obj)]))})")
            value = getattr(obj, name)
            kind = type(value)
            if kind in safe:
                return value
            try:
                # A method bound to the object itself is as safe as the object, which was
                # checked when the tool got it (`moment.weekday`: the hot case).
                if ((kind is builtin_method and value not in escapes)
                        or (kind is bound_method and bound_ok)) and value.__self__ is obj:
                    return value
                check_value(value)
            except BaseException:
                self.failed = True
                raise
            return value

        return _getattr_

    def _check_name(self, name: str) -> None:
        if type(name) is not str:
            self.stop("sandbox_violation", "attribute names must be strings")
        if name.startswith("_"):
            self.stop("sandbox_violation", f"attribute {name!r} starts with an underscore")
        if name in self.denied_attributes or name.startswith(self.denied_prefixes):
            self.stop("sandbox_violation", f"attribute {name!r} is denied by the policy")
        if name not in BY_OBJECT:
            self.checked_names.add(name)

    def object_attribute(self, obj: Any, name: str) -> None:
        """`register` on an ABC, by any route: the ABC itself (`Iterable.register`, an alias
        of it, one taken out of a container) or something whose `register` is an ABC's (a
        `typing` alias forwards it). Refused whatever the policy denies."""
        if ABCMeta is None:  # no ABCs to protect without `abc`: refuse the name instead
            self.stop("sandbox_violation", f"attribute {name!r} is not for tools")
        if isinstance(obj, ABCMeta) or isinstance(
                getattr(getattr(obj, name, None), "__self__", None), ABCMeta):
            self.stop("sandbox_violation", f"{name!r} on an ABC changes isinstance answers "
                      "for the whole worker and is not for tools")

    def call_guard(self) -> Callable[..., Any]:
        check_value = self.check_value
        plain = self.safe_values
        allowed = self.allowed

        def _call_(func: Any, /, *args: Any, **kwargs: Any) -> Any:
            # Literal keywords were checked at compile time; `**` goes through `_apply_`.
            try:
                if isinstance(func, type) and func not in allowed:
                    check_value(func)
            except BaseException:
                self.failed = True
                raise
            result = func(*args, **kwargs)
            if type(result) not in plain:
                try:
                    check_value(result)
                except BaseException:
                    self.failed = True
                    raise
            return result

        return _call_

    def apply_guard(self) -> Callable[..., Any]:
        """`f(*args, **kwargs)` compiles to `_apply_(f, ...)`: the call guard, and no key of
        a `**` mapping may start with an underscore, as no literal keyword may."""
        call = self.call_guard()
        stop = self.stop

        check_value = self.check_value
        safe = self.safe_values

        def _apply_(func: Any, /, *args: Any, **kwargs: Any) -> Any:
            # `f(*items, **mapping)` takes values out of containers: they are checked like
            # any item (`slice(*tainted).stop` read one back unchecked).
            try:
                for key, value in kwargs.items():
                    # str's own startswith: a str subclass could answer anything.
                    if type(key) is not str or str.startswith(key, "_"):
                        self.failed = True
                        stop("sandbox_violation", f"keyword argument {key!r} starts with an "
                             "underscore (also when it comes from a ** mapping)")
                    if type(value) not in safe:
                        check_value(value)
                for value in args:
                    if type(value) not in safe:
                        check_value(value)
            except BaseException:
                self.failed = True
                raise
            return call(func, *args, **kwargs)

        return _apply_

    def getitem_guard(self) -> Callable[[Any, Any], Any]:
        check_value = self.check_value
        plain = self.safe_values

        def _getitem_(obj: Any, key: Any) -> Any:
            value = obj[key]
            if type(value) not in plain:
                try:
                    check_value(value)
                except BaseException:
                    self.failed = True
                    raise
            return value

        return _getitem_

    def getiter_guard(self) -> Callable[[Any, int], Iterator[Any]]:
        check_value = self.check_value
        check_items = self.check_items
        plain = self.safe_values

        def _getiter_(obj: Any, depth: int = 0) -> Iterator[Any]:
            for item in obj:
                try:
                    if type(item) not in plain:
                        check_value(item)
                    if depth:
                        check_items(item, depth)
                except BaseException:
                    self.failed = True
                    raise
                yield item

        return _getiter_

    def args_guard(self) -> Callable[..., None]:
        check_value = self.check_value
        plain = self.safe_values

        def _args_(*values: Any) -> None:
            try:
                for value in values:
                    kind = type(value)
                    if kind not in plain:
                        check_value(value)
                    elif kind is tuple:  # *args
                        for item in value:
                            if type(item) not in plain:
                                check_value(item)
                    elif kind is dict:  # **kwargs
                        for item in value.values():
                            if type(item) not in plain:
                                check_value(item)
            except BaseException:
                self.failed = True
                raise

        return _args_

    def write_guard(self) -> Callable[[Any], NoReturn]:
        def _write_(obj: Any) -> NoReturn:
            self.failed = True
            self.stop("sandbox_violation", "tools may not write or delete attributes")

        return _write_

    def type_guard(self) -> Callable[[Any], type]:
        """`_type_(x)`: what `type(x) == int` compares (`dyntools.base.type_compare`)."""
        allowed = self.allowed
        plain = PLAIN_TYPES

        def _type_(value: Any, /) -> type:
            try:
                kind = type(value)
                return kind if kind in plain or kind in allowed else ForeignType
            except BaseException:
                self.failed = True
                raise

        return _type_

    def guard_names(self) -> dict[str, Any]:
        """Every name RestrictedPython-compiled tool code refers to, for its globals."""
        return {
            "_getattr_": self.getattr_guard(),
            "_write_": self.write_guard(),
            "_call_": self.call_guard(),
            "_apply_": self.apply_guard(),
            "_getitem_": self.getitem_guard(),
            "_getiter_": self.getiter_guard(),
            "_args_": self.args_guard(),
            "_slice_": slice,
            "_type_": self.type_guard(),
        }

    # -- imports ---------------------------------------------------------------------------

    def add_module(self, dotted: str, module: Any, members: Iterable[str],
                   replacements: Mapping[str, Any] | None = None) -> None:
        """A view of `module`'s allowed `members`; `replacements` (member -> value) put the
        worker's hardened versions in place of some (see `hardening`)."""
        view = self._view(dotted)
        allowed = []
        for member in members:
            value = getattr(module, member, _MISSING)
            if replacements and member in replacements and value is not _MISSING:
                value = replacements[member]
            # Escape routes never enter a view, even if a policy lists them.
            # A module never enters a view: allowed submodules get views of their own.
            if (value is not _MISSING and not member.startswith("_")
                    and id(value) not in self.escape_ids and type(value) is not ModuleType):
                view.__dict__[member] = value
                allowed.append(member)
                self.allow(value)
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
            try:
                if level != 0 or type(name) is not str:
                    self.failed = True
                    self.stop("sandbox_violation", "relative imports are not allowed")
                # C code called from tool code (`datetime.strptime` importing `_strptime`)
                # imports through the caller's builtins with an empty *list*; the import
                # statement passes None or a tuple, and tools cannot call __import__
                # themselves. The module goes to that C code, not to the tool.
                from_c = type(fromlist) is list and not fromlist and real_import is not None
                if from_c:
                    if name.partition(".")[0] in denied:
                        self.failed = True
                        self.stop("sandbox_violation", f"import of {name!r} is not allowed")
                    view = None
                else:
                    # A package that is not itself allowed (`import urllib`) has a view
                    # holding only its allowed submodules: no members of its own.
                    allowed = members.get(name)
                    if allowed is None and (type(name) is not str or name not in views):
                        self.failed = True
                        self.stop("sandbox_violation", f"import of {name!r} is not allowed")
                    if fromlist:
                        for member in fromlist:
                            # A member, or an allowed submodule (`from urllib import parse`).
                            if type(member) is not str or not (
                                    (allowed is not None and member in allowed)
                                    or f"{name}.{member}" in views):
                                self.failed = True
                                self.stop("sandbox_violation",
                                          f"import of {name}.{member} is not allowed")
                        view = views[name]
                    else:
                        view = views[name.partition(".")[0]]
            except BaseException:
                self.failed = True
                raise
            if from_c and real_import is not None:
                return real_import(name, globals, locals, fromlist, level)
            return view

        return __import__

    # -- output ------------------------------------------------------------------------------

    def print_function(self) -> Callable[..., None]:
        output = self.output

        def print(*args: Any, sep: str | None = " ", end: str | None = "\n",
                  file: Any = None, flush: bool = False) -> None:
            if file is not None:
                self.failed = True
                self.stop("sandbox_violation", "print(file=...) is not allowed")
            sep = " " if sep is None else sep
            end = "\n" if end is None else end
            if type(sep) is not str or type(end) is not str:
                raise TypeError("sep and end must be strings")
            text = sep.join([str(a) for a in args]) + end
            try:
                size = self.output_size + len(text.encode("utf-8", "surrogatepass"))
                if size > self.max_output_bytes:
                    self.failed = True
                    self.stop("bad_result",
                              f"the tool printed more than {self.max_output_bytes} bytes")
            except BaseException:
                self.failed = True
                raise
            self.output_size = size
            output.append(text)

        return print

    def take_output(self) -> str:
        text = "".join(self.output)
        self.output.clear()
        self.output_size = 0
        return text


def refused_library_kinds() -> list[type]:
    """Library kinds no tool may hold, beyond `FORBIDDEN_TYPES` (the worker forbids them with
    its own objects' kinds): weak references (they reach objects behind the guards), typing's
    `ForwardRef` (a compiled annotation string), and `functools.cached_property`, a class's
    descriptor read off the class itself (its `lock` is shared by every instance: a tool that
    held it could leave it locked, or read who holds it, from call to call)."""
    import _weakref

    kinds: list[type] = [_weakref.ReferenceType, _weakref.ProxyType,
                         _weakref.CallableProxyType]
    for module_name, name in (("typing", "ForwardRef"), ("functools", "cached_property")):
        module = sys.modules.get(module_name)
        kind = getattr(module, name, None) if module is not None else None
        if isinstance(kind, type):
            kinds.append(kind)
    return kinds


def safe_builtins(names: Iterable[str], guards: Guards) -> dict[str, Any]:
    """The builtins a tool sees: the policy's names, our print, the import guard."""
    import builtins

    from dyntools.sandbox.worker.hardening import safe_hash

    table: dict[str, Any] = {}
    for name in names:
        value = getattr(builtins, name, _MISSING)
        if value is not _MISSING:
            table[name] = value
    if "hash" in table:
        table["hash"] = safe_hash
    table["print"] = guards.print_function()
    table["__import__"] = guards.import_guard()
    for value in table.values():
        guards.allow(value)
    return table


def permissive_guard_names() -> dict[str, Any]:
    """Guards that let everything through, to show what the other layers hold alone (the
    `restricted` layer disabled: tests and `--disable-layer` only)."""
    def call(func: Any, /, *args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    def getiter(obj: Any, depth: int = 0) -> Any:
        return iter(obj)

    def args(*values: Any) -> None:
        return None

    return {
        "_getattr_": getattr, "_write_": lambda obj: obj, "_call_": call, "_apply_": call,
        "_getitem_": lambda obj, key: obj[key], "_getiter_": getiter, "_args_": args,
        "_slice_": slice, "_type_": type,
    }
