"""The static gate: layer 1 of dyntools' defence (DESIGN.md §3).

`check_source` is pure: it never imports, compiles into the host or executes the file. It
returns every finding it can as a `GateReport` and never raises on any input; a rule that
fails is itself a finding (DT902), so a bug in the gate refuses a file rather than passing it.
"""

from __future__ import annotations

import ast
import os
import warnings
from typing import TYPE_CHECKING

from dyntools.base.regular_files import open_regular
from dyntools.gate.capabilities import NONE
from dyntools.gate.contract import Contract, check_contract
from dyntools.gate.findings import MAX_FINDINGS_PER_CODE, Finding, GateReport, sha256_hex
from dyntools.gate.hostuse import check_host_use
from dyntools.gate.hygiene import check_bytes
from dyntools.gate.identifiers import non_ascii_identifiers
from dyntools.gate.policy import Policy, PolicyError, load_policy
from dyntools.gate.visitor import GateVisitor

if TYPE_CHECKING:
    from typing import BinaryIO

__all__ = ["Policy", "PolicyError", "check_file", "check_script", "check_source",
           "load_policy", "read_bounded"]

SCRIPT = "script"  # `_check`'s mode for a code-mode script (dyntools/gate/script.py)


def check_source(
    data: bytes | str,
    policy: Policy | None = None,
    *,
    path: str = "<string>",
    expected_name: str | None = None,
) -> GateReport:
    """Gate one tool file. Accepts raw bytes (preferred: hygiene runs on the bytes) or text.

    `expected_name`: the tool this file must be; a NAME other than it is a DT504 finding.
    An accepted report carries the file's metadata (`report.metadata`), so nothing needs to
    parse the file again to read its NAME, DESCRIPTION, PARAMS, EXAMPLES or CAPABILITIES."""
    return _report(data, policy, path, expected_name, None)


def check_script(data: bytes | str, policy: Policy | None = None, *,
                 path: str = "<script>") -> GateReport:
    """Gate one code-mode script (dyntools/gate/script.py): every rule of a tool file but
    the contract's (metadata, top-level shape), and the script's own. Same findings, codes,
    positions and renderings; an accepted report carries no metadata (a script has none)."""
    return _report(data, policy, path, None, SCRIPT)


def _report(data: bytes | str, policy: Policy | None, path: str, expected_name: str | None,
            mode: str | None) -> GateReport:
    raw = data.encode("utf-8", errors="surrogatepass") if isinstance(data, str) else bytes(data)
    digest = sha256_hex(raw)
    active = policy if policy is not None else load_policy()
    counts: dict[str, int] = {}
    contract: Contract | None = None
    try:
        findings, lines, contract = _check(raw, active, counts, expected_name, mode)
    except Exception as exc:
        findings = [Finding(1, 1, "DT902", f"gate error {type(exc).__name__}: {exc}")]
        lines = []
    capped = _capped(findings, counts)
    # An accepted file's metadata (the gate proved its shapes: NAME, DESCRIPTION and PARAMS
    # are there, and all of it is JSON data).
    metadata_json = contract.metadata_json if contract is not None and not capped else None
    capabilities = None
    if metadata_json is not None and contract is not None:
        capabilities = contract.capabilities or NONE
    return GateReport(
        path=path,
        sha256=digest,
        findings=capped,
        policy_digest=active.digest,
        source_lines=tuple(lines),
        declared_name=contract.name if contract is not None else None,
        metadata_json=metadata_json,
        declared_capabilities=capabilities,
    )


def _capped(findings: list[Finding], counts: dict[str, int]) -> tuple[Finding, ...]:
    """The first MAX_FINDINGS_PER_CODE findings of each code, in file order, and one line per
    code saying how many more there were (`counts`: totals already known, e.g. from the walk)."""
    ordered = sorted(set(findings), key=Finding.sort_key.fget)  # type: ignore[attr-defined]
    kept: list[Finding] = []
    seen: dict[str, int] = {}
    for finding in ordered:
        seen[finding.code] = seen.get(finding.code, 0) + 1
        if seen[finding.code] <= MAX_FINDINGS_PER_CODE:
            kept.append(finding)
    for code, count in seen.items():
        total = max(count, counts.get(code, 0))
        if total > MAX_FINDINGS_PER_CODE:
            last = next(f for f in reversed(kept) if f.code == code)
            kept.append(
                Finding(
                    last.line,
                    last.col,
                    code,
                    f"{total - MAX_FINDINGS_PER_CODE} more {code} findings not listed",
                )
            )
    return tuple(kept)


def check_file(path: str | os.PathLike[str], policy: Policy | None = None, *,
               expected_name: str | None = None) -> GateReport:
    """Gate a file on disk. Raises OSError when it cannot be read (a usage problem), or is
    not a regular file (NotRegularFile: a FIFO, a device, a folder)."""
    active = policy if policy is not None else load_policy()
    with open_regular(path) as handle:
        data = read_bounded(handle, os.fstat(handle.fileno()).st_size, active.limits.max_bytes)
    return check_source(data, active, path=os.fspath(path), expected_name=expected_name)


def read_bounded(handle: BinaryIO, size: int, limit: int) -> bytes:
    """At most `limit + 1` bytes (one more than allowed shows a file is too large), asking
    for what the file holds (`size`, from stat) rather than for `limit + 1` at once: a read
    of 256 KiB allocates and maps 256 KiB for every small file."""
    data = handle.read(min(max(size, 0), limit) + 1)
    if len(data) > size and len(data) <= limit:  # it grew since the stat: read on to the cap
        data += handle.read(limit + 1 - len(data))
    return data


def _check(
    raw: bytes, policy: Policy, counts: dict[str, int], expected_name: str | None,
    mode: str | None = None,
) -> tuple[list[Finding], list[str], Contract | None]:
    decoded = check_bytes(raw, policy.limits.max_bytes)
    if decoded.text is None:
        return decoded.findings, [], None
    text = decoded.text
    # Python's own line breaks only (hygiene has refused lone CRs): str.splitlines would also
    # split at form feeds and other separators and shift every later line.
    lines = text.replace("\r\n", "\n").split("\n")
    try:
        tree = _parse(text)
    except SyntaxError as exc:
        return [_syntax_finding(exc)], lines, None
    except (RecursionError, MemoryError):
        return [Finding(1, 1, "DT010", "the file nests too deeply to parse")], lines, None
    except ValueError as exc:  # e.g. "source code string cannot contain null bytes"
        return [Finding(1, 1, "DT011", f"not valid Python: {exc}")], lines, None
    ascii_only = text.isascii()
    findings: list[Finding] = []
    if not ascii_only:
        findings.extend(non_ascii_identifiers(text))
    # A file whose text never spells a provided module's name cannot import it.
    track_host = any(name in text for name in policy.provided_modules)
    # Nor can one that never spells "global" hold a global statement.
    visitor = GateVisitor(policy, lines, ascii_only, track_host, "global" in text)
    if mode == SCRIPT:
        _as_script(visitor)
    try:
        visitor.run(tree)
    except RecursionError:
        visitor.findings.append(Finding(1, 1, "DT010", "the file nests too deeply to check"))
    contract = None
    if mode == SCRIPT:
        if not any(f.code in ("DT009", "DT010") for f in visitor.findings):
            from dyntools.gate.script import (
                check_script_globals,
                check_script_host_use,
                check_script_shape,
            )

            check_script_shape(tree, visitor.report)
            check_script_globals(tree, {f.line for f in visitor.findings if f.code == "DT105"},
                                 visitor.report)
            check_script_host_use(policy, visitor.host_imports, visitor.host_uses,
                                  visitor.report)
    elif not any(f.code == "DT009" for f in visitor.findings):
        contract = check_contract(tree, visitor.function_yields, visitor.report,
                                  expected_name=expected_name, literals=visitor.literals)
        check_host_use(policy, visitor.host_imports, visitor.host_uses, contract.declared,
                       contract.capabilities, contract.name, visitor.report)
    findings.extend(visitor.findings)
    counts.update(visitor.code_counts)
    return findings, lines, contract


def _as_script(visitor: GateVisitor) -> None:
    """The names the host gives a script are bound before its first line, as module names
    (every other rule of the walk is a tool file's)."""
    from dyntools.gate.script import GIVEN

    visitor.module_scope.bound.update(GIVEN)


def _parse(text: str) -> ast.Module:
    """`ast.parse`, every warning ignored: SyntaxWarnings (invalid escapes, `is` with a
    literal) are not findings, and under `-W error` they would make a valid file a
    SyntaxError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


def _syntax_finding(exc: SyntaxError) -> Finding:
    line = exc.lineno or 1
    col = exc.offset or 1
    message = exc.msg or "invalid syntax"
    if "too many nested" in message or "too many levels" in message:
        return Finding(line, max(col, 1), "DT010", f"nesting too deep: {message}")
    return Finding(line, max(col, 1), "DT011", f"syntax error: {message}")
