"""Library caches the worker empties after each call (worker side).

A cache inside a library module is shared by every call a warm worker serves. One that hands
back the *object* it stored is a data channel between callers, not only a timing oracle:
`typing.Literal[x]` returns the alias a previous caller made for an equal `x`
(`datetime.timezone(timedelta(0), secret)` equals `timezone.utc`, so its name travels), and
`re.compile` returns a previous caller's `Pattern`, so which patterns survive an eviction tells
what an earlier caller compiled. No tool can read these caches directly; what they return is
the channel. The worker empties every one it knows after each call, inside the call's window
(`Worker.close_window`), so that whatever they held of the call is released while the call's
guards and audit hook still watch:

- `typing`'s caches (`typing._cleanups`, the hook typing itself offers for this);
- `re`'s compile cache (`re.purge`), `_strptime`'s format cache (`time.strptime`,
  `datetime.strptime`), `struct`'s format cache, `zoneinfo.ZoneInfo`'s cache;
- every `functools.lru_cache` of a loaded module: at its top level (`urllib.parse`'s
  splitting, `fnmatch`'s patterns) or in one of its classes, also under a property
  (`ipaddress`'s `is_private` and friends);
- every dict a class of a loaded module keeps under a name that says it is a cache
  (`ipaddress._BaseV4._netmask_cache` and `_BaseV6`'s: a prefix, or a netmask string of any
  length, to the netmask and prefix length made for it. `True == 1`, so a caller that made a
  network with prefix `True` had every later caller's prefix 1 answered `True`; and the keys
  a caller chose stayed for the next). The walk of the tool's state compares these after
  they are emptied (sandbox/worker/state.py, `Walk.library_container`), so one the worker
  does not empty spends it.

Modules a call imports lazily (`datetime.strptime` imports `_strptime`) are looked at once
they are there. Emptying a cache changes no answer, only how fast the next call gets it.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class LibraryCaches:
    """`clear()` empties every library cache known (see the module docstring)."""

    def __init__(self) -> None:
        self.module_count = -1
        self.clearers: list[Callable[[], Any]] = []

    def clear(self) -> None:
        if len(sys.modules) != self.module_count:
            self.clearers = find_clearers()
            self.module_count = len(sys.modules)
        for clear in self.clearers:
            clear()


def find_clearers() -> list[Callable[[], Any]]:
    """What empties each cache of the modules loaded now."""
    modules = dict(sys.modules)
    clearers: list[Callable[[], Any]] = []
    typing = modules.get("typing")
    if typing is not None:
        clearers += [clear for clear in getattr(typing, "_cleanups", ()) if callable(clear)]
    re = modules.get("re")
    if re is not None:
        clearers.append(re.purge)
    struct = modules.get("struct")
    if struct is not None and callable(getattr(struct, "_clearcache", None)):
        clearers.append(struct._clearcache)
    strptime = modules.get("_strptime")
    regex_cache = getattr(strptime, "_regex_cache", None)
    if type(regex_cache) is dict:
        clearers.append(regex_cache.clear)
    zoneinfo = modules.get("zoneinfo")
    zone = getattr(zoneinfo, "ZoneInfo", None)
    if zone is not None and callable(getattr(zone, "clear_cache", None)):
        clearers.append(zone.clear_cache)
    cache_kind = _cache_kind()
    if cache_kind is None:
        return clearers
    seen: set[int] = {id(getattr(clear, "__self__", None)) for clear in clearers}
    for name, module in modules.items():
        namespace = getattr(module, "__dict__", None)
        if type(namespace) is not dict:
            continue
        for value in list(namespace.values()):
            for cache in _caches_in(value, name, cache_kind):
                key = id(getattr(cache.cache_clear, "__self__", cache))
                if key not in seen:
                    seen.add(key)
                    clearers.append(cache.cache_clear)
    return clearers


def _caches_in(value: Any, module_name: str, cache_kind: type) -> list[Any]:
    """The lru_caches `value` is or holds in its namespace: a cache; a class of this module,
    whose attributes (and their properties' getters) may be caches."""
    kind = type(value)
    if kind is cache_kind:
        return [value]
    if not isinstance(value, type) or getattr(value, "__module__", None) != module_name:
        return []
    found: list[Any] = []
    for name, attribute in list(vars(value).items()):
        if type(attribute) is dict and is_cache_name(name):
            found.append(_DictCache(attribute))
        elif type(attribute) is cache_kind:
            found.append(attribute)
        elif type(attribute) is property:
            for part in (attribute.fget, attribute.fset, attribute.fdel):
                if type(part) is cache_kind:
                    found.append(part)
    return found


def is_cache_name(name: str) -> bool:
    return "cache" in name.lower()


class _DictCache:
    """A class-level dict cache, emptied as an lru_cache is (`cache_clear`)."""

    __slots__ = ("cache_clear",)

    def __init__(self, table: dict[Any, Any]) -> None:
        self.cache_clear = table.clear


def _cache_kind() -> type | None:
    functools = sys.modules.get("functools")
    kind = getattr(functools, "_lru_cache_wrapper", None)
    return kind if isinstance(kind, type) else None
