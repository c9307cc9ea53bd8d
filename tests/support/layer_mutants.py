"""The standing mutation check: every test named for one sandbox layer runs once more with
that layer switched off, and must fail.

A test is named for a layer when
- it carries `@pytest.mark.layer("seccomp")` (on the function, or on one `pytest.param`), or
- its name says so: a parametrisation whose id is exactly a layer's name
  (`test_fork_is_refused[seccomp]`), or a function name with `<layer>_alone` in it
  (`test_seccomp_alone_kills_a_thread_start`, `..._by_the_audit_hook_alone`).
  `@pytest.mark.layer(None)` says a test so named claims nothing the layer's absence
  would break (a row of the layer matrix where the layer stops nothing, say).

Its copy, `<name>-without-<layer>[<params>]`, runs the same body with every sandbox worker the test
builds switched below that layer through the suite's seam (`build_spec(skip_layers=...,
allow_weaker_sandbox=True)`: what `run_unchecked(disable=...)`, `exec --disable-layer` and
the pool's `_skip_layers` pass down). The copy passes when the test fails; it fails when the
test still passes (the test does not prove what its name claims), and when the test built no
worker at all (a test of a layer through a subprocess or a module-scoped pool cannot be
switched from here: mark it `layer(None)` and say why in its docstring).

`DYNTOOLS_LAYER_MUTANTS=0` leaves the copies out (a quick local run); `make test` and CI run
them."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from dyntools.sandbox.limits import LAYERS

MARKER = "layer"
MUTANT = "layer_mutant"
SUFFIX = "-without-"
BUILT = pytest.StashKey[list[frozenset[str]]]()
_ALONE = re.compile(r"(?:^|_)(" + "|".join(sorted(LAYERS, key=len, reverse=True)) + r")_alone(?:_|$)")


def named_layer(item: pytest.Item) -> str | None:
    """The layer `item` is named for, or None."""
    marker = item.get_closest_marker(MARKER)
    if marker is not None:
        layer = marker.args[0] if marker.args else None
        if layer is not None and layer not in LAYERS:
            raise pytest.UsageError(f"{item.nodeid}: unknown layer {layer!r} in @pytest.mark."
                                    f"layer; known: {', '.join(LAYERS)}")
        return layer
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.id in LAYERS:
        return str(callspec.id)
    found = _ALONE.search(getattr(item, "originalname", item.name))
    return found.group(1) if found else None


def enabled(config: pytest.Config) -> bool:
    return os.environ.get("DYNTOOLS_LAYER_MUTANTS", "1") != "0"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}(name): the test proves what the sandbox layer "
                            "`name` stops; a copy runs with that layer off and must fail "
                            "(tests/support/layer_mutants.py)")
    config.addinivalue_line("markers", f"{MUTANT}(name): the copy of a layer test, with `name` "
                            "switched off")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    if not enabled(config):
        return
    grown: list[pytest.Item] = []
    for item in items:
        grown.append(item)
        layer = named_layer(item) if isinstance(item, pytest.Function) else None
        if layer is None:
            continue
        assert isinstance(item, pytest.Function)
        mutant = pytest.Function.from_parent(
            item.parent, name=f"{item.name}{SUFFIX}{layer}", callspec=getattr(item, "callspec", None),
            callobj=item.obj, fixtureinfo=item._fixtureinfo,
            originalname=f"{item.originalname}{SUFFIX}{layer}",  # pytest names the node by it
            keywords={MUTANT: True})
        mutant.add_marker(pytest.mark.layer_mutant(layer))
        grown.append(mutant)
    items[:] = grown


def switched_off(layer: str, original: Callable[..., Any],
                 built: list[frozenset[str]]) -> Callable[..., Any]:
    def build_spec(*args: Any, **kwargs: Any) -> Any:
        skip = frozenset(kwargs.get("skip_layers", frozenset())) | {layer}
        kwargs["skip_layers"] = skip
        kwargs["allow_weaker_sandbox"] = True
        built.append(skip)
        return original(*args, **kwargs)

    return build_spec


@pytest.fixture(autouse=True)
def _layer_switched_off(request: pytest.FixtureRequest,
                        monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """In a mutant: every worker this test builds skips the mutant's layer."""
    marker = request.node.get_closest_marker(MUTANT)
    if marker is None:
        yield
        return
    from dyntools.sandbox import spec

    built: list[frozenset[str]] = []
    request.node.stash[BUILT] = built
    original = spec.build_spec
    patched = switched_off(marker.args[0], original, built)
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("dyntools") and \
                getattr(module, "build_spec", None) is original:
            monkeypatch.setattr(module, "build_spec", patched)
    yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    report = yield
    marker = item.get_closest_marker(MUTANT)
    if marker is None or report.when != "call" or report.skipped:
        return report
    layer = marker.args[0]
    built = item.stash.get(BUILT, [])
    if report.passed:
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid}: passes with the {layer} layer switched off in "
                           f"{len(built)} worker(s): it does not prove what {layer} stops")
    elif not built:
        report.longrepr = (f"{item.nodeid}: failed, but built no sandbox worker here, so the "
                           f"{layer} layer was never switched off: the mutant proves nothing "
                           f"(mark the test layer(None) and say why)\n{report.longrepr}")
    else:
        failure = getattr(report.longrepr, "reprcrash", None)
        why = failure.message if failure is not None else str(report.longrepr)
        report.outcome = "passed"
        report.longrepr = None
        report.sections.append((f"with {layer} off, it failed as it must", why))
    return report
