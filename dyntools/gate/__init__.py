"""The static gate: layer 1 of dyntools' defence (DESIGN.md §3).

`check_source` is pure: it never imports, compiles into the host or executes the file. It
returns every finding it can as a `GateReport` and never raises on any input; a rule that
fails is itself a finding (DT902), so a bug in the gate refuses a file rather than passing it.
"""

from __future__ import annotations

import ast
import io
import os
import tokenize
import unicodedata
import warnings

from dyntools.findings import MAX_FINDINGS_PER_CODE, Finding, GateReport, sha256_hex
from dyntools.gate.contract import check_contract
from dyntools.gate.hygiene import check_bytes
from dyntools.gate.policy import Policy, PolicyError, load_policy
from dyntools.gate.visitor import GateVisitor

__all__ = ["Policy", "PolicyError", "check_file", "check_source", "load_policy"]


def check_source(
    data: bytes | str,
    policy: Policy | None = None,
    *,
    path: str = "<string>",
) -> GateReport:
    """Gate one tool file. Accepts raw bytes (preferred: hygiene runs on the bytes) or text."""
    raw = data.encode("utf-8", errors="surrogatepass") if isinstance(data, str) else bytes(data)
    digest = sha256_hex(raw)
    active = policy if policy is not None else load_policy()
    counts: dict[str, int] = {}
    try:
        findings, lines, declared = _check(raw, active, counts)
    except Exception as exc:
        findings = [Finding(1, 1, "DT902", f"gate error {type(exc).__name__}: {exc}")]
        lines, declared = [], None
    return GateReport(
        path=path,
        sha256=digest,
        findings=_capped(findings, counts),
        policy_digest=active.digest,
        source_lines=tuple(lines),
        declared_name=declared,
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


def check_file(path: str | os.PathLike[str], policy: Policy | None = None) -> GateReport:
    """Gate a file on disk. Raises OSError when it cannot be read (a usage problem)."""
    active = policy if policy is not None else load_policy()
    with open(path, "rb") as handle:
        data = handle.read(active.limits.max_bytes + 1)
    return check_source(data, active, path=os.fspath(path))


def _check(
    raw: bytes, policy: Policy, counts: dict[str, int]
) -> tuple[list[Finding], list[str], str | None]:
    decoded = check_bytes(raw, policy.limits.max_bytes)
    if decoded.text is None:
        return decoded.findings, [], None
    text = decoded.text
    # Python's own line breaks only (hygiene has refused lone CRs): str.splitlines would also
    # split at form feeds and other separators and shift every later line.
    lines = text.replace("\r\n", "\n").split("\n")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings (invalid escapes) are not findings
            tree = ast.parse(text, type_comments=False)
    except SyntaxError as exc:
        return [_syntax_finding(exc)], lines, None
    except (RecursionError, MemoryError):
        return [Finding(1, 1, "DT010", "the file nests too deeply to parse")], lines, None
    except ValueError as exc:  # e.g. "source code string cannot contain null bytes"
        return [Finding(1, 1, "DT011", f"not valid Python: {exc}")], lines, None
    ascii_only = text.isascii()
    findings: list[Finding] = []
    if not ascii_only:
        findings.extend(_non_ascii_identifiers(text))
    visitor = GateVisitor(policy, lines, ascii_only)
    try:
        visitor.run(tree)
    except RecursionError:
        visitor.findings.append(Finding(1, 1, "DT010", "the file nests too deeply to check"))
    declared = None
    if not any(f.code == "DT009" for f in visitor.findings):
        declared = check_contract(tree, visitor.function_yields, visitor.report)
    findings.extend(visitor.findings)
    counts.update(visitor.code_counts)
    return findings, lines, declared


def _syntax_finding(exc: SyntaxError) -> Finding:
    line = exc.lineno or 1
    col = exc.offset or 1
    message = exc.msg or "invalid syntax"
    if "too many nested" in message or "too many levels" in message:
        return Finding(line, max(col, 1), "DT010", f"nesting too deep: {message}")
    return Finding(line, max(col, 1), "DT011", f"syntax error: {message}")


# Tokens whose text may legitimately hold any Unicode: string literals and comments.
_TEXT_TOKENS = frozenset(
    getattr(tokenize, name)
    for name in ("STRING", "COMMENT", "FSTRING_MIDDLE")
    if hasattr(tokenize, name)
)


# Pieces the tokenizer may split one identifier into (at connector punctuation).
_WORD_TOKENS = frozenset({tokenize.NAME, tokenize.ERRORTOKEN, tokenize.NUMBER})


def _non_ascii_identifiers(text: str) -> list[Finding]:
    """Identifiers are NFKC-normalised by the parser, so the tree shows `eval` where the
    source spells it in fullwidth letters: non-ASCII outside strings and comments is found on
    the tokens instead. Every token counts, not only NAME: the tokenizer splits a name at
    connector punctuation such as U+203F or U+FF3F, which the parser then joins again."""
    findings: list[Finding] = []
    words: list[tuple[tuple[int, int], tuple[int, int], str]] = []  # start, end, text
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in _TEXT_TOKENS or not token.string.strip():
                continue
            if words and words[-1][1] == token.start and token.type in _WORD_TOKENS:
                start, _, joined = words[-1]
                words[-1] = (start, token.end, joined + token.string)
            else:
                words.append((token.start, token.end, token.string))
    except (tokenize.TokenError, SyntaxError):
        pass  # the parser already accepted the file; a tokenizer quirk is not a finding
    for (line, col), _, word in words:
        if not word.isascii():
            findings.append(
                Finding(
                    line,
                    col + 1,
                    "DT007",
                    f"identifier {word!r} is not ASCII (Python reads it as {_nfkc(word)!r})",
                )
            )
    return findings


def _nfkc(name: str) -> str:
    return unicodedata.normalize("NFKC", name)
