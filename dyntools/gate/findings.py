"""Findings: what the gate reports, the table of rules, and the three renderings.

A finding is a small immutable value with a stable code. Codes are grouped in numbered
families and never reused: once a code has shipped, its meaning is fixed, so audit logs and
suppression-free CI dashboards keep meaning the same thing across releases.

    DT0xx  hygiene    bytes, encoding, invisible characters, size and complexity limits, syntax
    DT1xx  shape      what may stand at the top level of a tool file
    DT2xx  imports    the module allow-list and how module names may be used
    DT3xx  names      names and attributes (underscores, frame internals, attribute writes)
    DT4xx  calls      builtins and the deny-list of dangerous calls
    DT5xx  contract   NAME, DESCRIPTION, PARAMS, EXAMPLES, CAPABILITIES
    DT6xx  functions  run(params) and the other functions
    DT7xx  syntax     statements and expressions the gate refuses outright, annotations
    DT9xx  internal   the gate could not finish: always a rejection, never a skip

Lines and columns are 1-based everywhere. Columns count characters (code points); SARIF
output converts them to UTF-16 code units, SARIF's default column kind.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Any

    from dyntools.gate.capabilities import Capabilities
    from dyntools.gate.metadata import ToolMetadata


class Family(StrEnum):
    HYGIENE = "hygiene"
    SHAPE = "shape"
    IMPORTS = "imports"
    NAMES = "names"
    CALLS = "calls"
    CONTRACT = "contract"
    FUNCTIONS = "functions"
    SYNTAX = "syntax"
    INTERNAL = "internal"


# The gate's small immutable values are NamedTuples: they compare, hash, order and refuse
# attribute writes.
class Rule(NamedTuple):
    code: str
    family: Family
    title: str
    help: str


def _rules(*rows: tuple[str, Family, str, str]) -> dict[str, Rule]:
    return {code: Rule(code, family, title, help_) for code, family, title, help_ in rows}


H, S, IM, N, C, K, F, X, Z = (
    Family.HYGIENE,
    Family.SHAPE,
    Family.IMPORTS,
    Family.NAMES,
    Family.CALLS,
    Family.CONTRACT,
    Family.FUNCTIONS,
    Family.SYNTAX,
    Family.INTERNAL,
)

RULES: dict[str, Rule] = _rules(
    # hygiene
    ("DT001", H, "not-utf8", "The file must be valid UTF-8."),
    ("DT002", H, "nul-byte", "NUL bytes are refused: tools disagree on where such a file ends."),
    ("DT003", H, "coding-cookie",
     "A coding declaration can make Python decode the file differently from what a reviewer "
     "reads; tool files are always UTF-8 and may not declare an encoding."),
    ("DT004", H, "bidi-control",
     "Bidirectional control characters reorder what a reviewer sees (Trojan Source)."),
    ("DT005", H, "invisible-character",
     "Invisible format characters (zero-width, BOM, fillers) hide code from a reviewer."),
    ("DT006", H, "control-character",
     "Control characters other than tab and newline are refused."),
    ("DT007", H, "non-ascii-identifier",
     "Identifiers must be ASCII: Unicode identifiers are NFKC-normalised by Python, so "
     "look-alike characters can spell a forbidden name."),
    ("DT008", H, "too-large", "The file exceeds the size limit of the policy."),
    ("DT009", H, "too-many-nodes", "The syntax tree exceeds the node limit of the policy."),
    ("DT010", H, "too-deep", "Expressions or blocks nest deeper than the policy allows."),
    ("DT011", H, "syntax-error", "The file is not valid Python."),
    ("DT012", H, "empty-file", "The file is empty."),
    ("DT013", H, "private-use-character",
     "Private-use and non-character code points have no agreed glyph: each font and "
     "terminal shows them differently, so a reviewer cannot know what they read."),
    # shape
    ("DT101", S, "top-level-statement",
     "Only a docstring, imports, constants bound to literals and def statements may stand at "
     "the top level."),
    ("DT102", S, "class-definition", "Classes are not allowed in tool files."),
    ("DT103", S, "decorator",
     "Decorators run code at definition time and are not allowed, but for functools.lru_cache "
     "(bare, or with literal maxsize/typed) and functools.cache on a function other than run."),
    ("DT104", S, "async", "async functions, await, async for and async with are not allowed."),
    ("DT105", S, "global-nonlocal",
     "nonlocal is not allowed; global only in a function, of a constant the file assigns at "
     "the top level (a call that rebinds it spends its worker)."),
    ("DT106", S, "constant-name",
     "Top-level assignments bind one name per value; the name may not be a builtin's, run, "
     "host, inputs, tools, result, or a metadata name (NAME, DESCRIPTION, PARAMS, EXAMPLES, "
     "CAPABILITIES) in another case."),
    ("DT107", S, "constant-value",
     "Top-level constants must be literals: str, int, float, bool, None, and lists, tuples, "
     "dicts and sets of literals."),
    ("DT108", S, "duplicate-definition", "A top-level name is bound more than once."),
    ("DT109", S, "script-metadata",
     "A code-mode script has no tool metadata: NAME, DESCRIPTION, PARAMS, EXAMPLES and "
     "CAPABILITIES belong to tool files (dyntools promote writes them from a run)."),
    ("DT110", S, "script-without-result",
     "A code-mode script answers with the value bound to the top-level name result; one that "
     "never binds it has no answer."),
    # imports
    ("DT201", IM, "module-not-allowed", "The module is not on the allow-list."),
    ("DT202", IM, "member-not-allowed", "The module member is not on the allow-list."),
    ("DT203", IM, "star-import", "import * hides what a file uses."),
    ("DT204", IM, "relative-import", "Relative imports are not allowed."),
    ("DT205", IM, "nested-import",
     "Imports are only allowed at the top level and in function bodies (not in a class body)."),
    ("DT206", IM, "module-as-value",
     "An imported module name may only be used as module.member with an allowed member; it "
     "may not be stored, passed, returned or aliased."),
    ("DT207", IM, "submodule-member",
     "The member is itself a module that is not on the allow-list."),
    ("DT208", IM, "import-alias-shadows",
     "An import alias may not shadow a builtin or another top-level name."),
    ("DT209", IM, "host-without-capabilities",
     "The host module (provided by dyntools) may only be imported by a tool that declares "
     "what it reaches in a CAPABILITIES constant."),
    ("DT210", IM, "type-check-only-member",
     "A collections.abc class may be used only as the second argument of isinstance or "
     "issubclass and in annotations: as a value, its register() changes isinstance answers "
     "for the whole worker."),
    # names and attributes
    ("DT301", N, "underscore-name",
     "A name starting with an underscore must be one the file binds, spelled _ or _name "
     "(not __name); names that start and end with one are reserved for the sandbox's guards "
     "and Python's own; keyword arguments never start with one."),
    ("DT302", N, "underscore-attribute", "Attributes starting with an underscore are not allowed."),
    ("DT303", N, "denied-attribute",
     "Frame, code, traceback, generator and coroutine internals (and a few other escape "
     "routes) are not allowed."),
    ("DT304", N, "format-attribute",
     "str.format and format_map resolve attribute paths inside the format string; use "
     "f-strings or % formatting."),
    ("DT305", N, "attribute-write",
     "Assigning or deleting attributes is not allowed: keep the value in a dict, or build a "
     "new value."),
    ("DT306", N, "undefined-name", "The name is neither bound in the file nor an allowed builtin."),
    ("DT307", N, "builtin-shadowed",
     "A top-level def may not take the name of a builtin: every call of it would read as "
     "the builtin."),
    ("DT308", N, "script-reserved-name",
     "In a code-mode script, inputs and tools are given by the host and may not be bound, and "
     "result (the answer) is bound only at the top level."),
    # calls and builtins
    ("DT401", C, "builtin-not-allowed", "The builtin is not on the allow-list."),
    ("DT402", C, "dangerous-call", "A well-known dangerous call."),
    ("DT403", C, "capability-not-declared",
     "A host member is used without the capability it needs: http_get, http_post_json and "
     "HttpError need a non-empty CAPABILITIES[\"http\"], call_tool a non-empty "
     "CAPABILITIES[\"tools\"]."),
    ("DT404", C, "tool-not-declared",
     "call_tool names a tool that CAPABILITIES[\"tools\"] does not list, or the tool itself."),
    ("DT406", C, "tool-call-form",
     "In a code-mode script, tools is used only as tools.NAME(key=value, **more): a call of "
     "one tool by name with keyword params, which the host sends to that tool."),
    ("DT405", C, "url-not-declared",
     "An HTTP request's URL (a string literal, or the literal head of an f-string) is not an "
     "absolute http(s) URL on a host CAPABILITIES[\"http\"] declares."),
    # contract
    ("DT501", K, "missing-name", "NAME is required."),
    ("DT502", K, "missing-description", "DESCRIPTION is required."),
    ("DT503", K, "missing-params", "PARAMS is required."),
    ("DT504", K, "invalid-name",
     "NAME must be a snake_case identifier of at most 64 characters, not a Python keyword."),
    ("DT505", K, "invalid-description", "DESCRIPTION must be a non-empty string."),
    ("DT506", K, "invalid-params-schema", "PARAMS must be a valid JSON Schema."),
    ("DT507", K, "params-not-object", 'PARAMS must be a JSON Schema with "type": "object".'),
    ("DT508", K, "invalid-examples",
     'EXAMPLES must be a list of {"params": {...}, "result": {...}} dicts (optionally with '
     'recorded "http" exchanges).'),
    ("DT509", K, "example-params-invalid", "An example's params do not validate against PARAMS."),
    ("DT510", K, "metadata-bidi-control",
     "A string in NAME, DESCRIPTION, PARAMS or EXAMPLES holds a bidirectional control "
     "character (even written as an escape): models read it, reviewers do not see it."),
    ("DT511", K, "metadata-invisible-character",
     "A string in NAME, DESCRIPTION, PARAMS or EXAMPLES holds an invisible character "
     "(format characters such as zero-width ones, the soft hyphen and Unicode TAG "
     "characters, fillers, variation selectors), even written as an escape."),
    ("DT512", K, "metadata-control-character",
     "A string in NAME, DESCRIPTION, PARAMS or EXAMPLES holds a control character other "
     "than tab and newline (and carriage return, in EXAMPLES) (C0, DEL, C1) or U+2028/U+2029, "
     "even written as an escape."),
    ("DT514", K, "params-validation-cost",
     "Validating params against PARAMS could hold the host too long: multipleOf outside "
     "1e-9..2**53, more than 100 us per params value, or an example too large to validate "
     "within 100 ms."),
    ("DT513", K, "metadata-private-use",
     "A string in NAME, DESCRIPTION, PARAMS or EXAMPLES holds a private-use or "
     "non-character code point, which each font and terminal shows differently."),
    ("DT515", K, "invalid-capabilities",
     "CAPABILITIES must be a dict of exact hosts (a name or address, with an optional port: "
     "no scheme, path, userinfo or wildcard), secret names and tool names; secrets are only "
     "sent with HTTP requests, so they need an http host."),
    ("DT516", K, "invalid-recorded-exchanges",
     "An example's \"http\" must be a list of recorded exchanges, in a tool that declares "
     "CAPABILITIES[\"http\"]."),
    ("DT517", K, "recorded-host-not-declared",
     "A recorded exchange requests a URL whose host CAPABILITIES[\"http\"] does not declare."),
    # functions
    ("DT601", F, "missing-run", "A tool file must define run(params)."),
    ("DT602", F, "run-signature", "run must take exactly one positional parameter, params."),
    ("DT603", F, "run-generator", "run must return a dict, so it may not be a generator."),
    ("DT604", F, "function-name",
     "A function name is public, or one underscore and then a letter or digit (_helper): "
     "never two underscores first."),
    # syntax
    ("DT701", X, "match-statement",
     "match is refused: class patterns read attributes named by __match_args__ at run time."),
    ("DT702", X, "annotation",
     "Annotations may only use builtin type names, allowed typing members, subscripts, "
     "tuples, | and None."),
    ("DT703", X, "statement-not-allowed",
     "The statement is not allowed (try/except*: the RestrictedPython layer refuses it)."),
    # internal
    ("DT901", Z, "unknown-node",
     "The gate does not know this syntax (a newer Python?) and refuses it until reviewed."),
    ("DT902", Z, "gate-error", "A gate rule failed; the file is refused rather than skipped."),
    ("DT903", Z, "policy-error", "The policy itself could not be applied."),
)


# A file with thousands of one mistake is refused just the same; reports keep the first 50
# findings of each code and say how many more there were.
MAX_FINDINGS_PER_CODE = 50


class Finding(NamedTuple):
    """One reason a file is refused. `line` and `col` are 1-based; col counts characters."""

    line: int
    col: int
    code: str
    message: str
    end_line: int | None = None
    end_col: int | None = None

    @property
    def rule(self) -> Rule:
        return RULES[self.code]

    @property
    def sort_key(self) -> tuple[int, int, str, str]:
        return (self.line, self.col, self.code, self.message)

    @property
    def family(self) -> Family:
        return RULES[self.code].family

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "family": self.family.value,
            "rule": self.rule.title,
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
            "message": self.message,
        }


# GateReport's fields in the order its constructor takes them.
_REPORT_FIELDS = ("path", "sha256", "findings", "policy_digest", "source_lines",
                  "declared_name", "metadata_json", "declared_capabilities")


class GateReport:
    """The gate's verdict on one source: accepted when there are no findings. Immutable;
    two reports are equal when their path, digest, findings and policy digest are."""

    __slots__ = _REPORT_FIELDS
    path: str
    sha256: str
    findings: tuple[Finding, ...]
    policy_digest: str
    source_lines: tuple[str, ...]
    # The string value NAME is bound to (None when unbound or not a string): lets a caller
    # check a file's declared name without parsing it a second time.
    declared_name: str | None
    # An accepted file's NAME, DESCRIPTION, PARAMS and EXAMPLES as the gate evaluated them,
    # as one JSON text (dyntools.gate.metadata: a host or a CLI that keeps thousands of
    # reports keeps one string each, not the examples' object graphs for the collector to
    # scan), and its parsed CAPABILITIES (empty when it declares none). None when refused.
    metadata_json: str | None
    declared_capabilities: Capabilities | None

    def __init__(self, path: str, sha256: str, findings: tuple[Finding, ...],
                 policy_digest: str = "", source_lines: tuple[str, ...] = (),
                 declared_name: str | None = None, metadata_json: str | None = None,
                 declared_capabilities: Capabilities | None = None) -> None:
        setter = object.__setattr__
        setter(self, "path", path)
        setter(self, "sha256", sha256)
        setter(self, "findings", findings)
        setter(self, "policy_digest", policy_digest)
        setter(self, "source_lines", source_lines)
        setter(self, "declared_name", declared_name)
        setter(self, "metadata_json", metadata_json)
        setter(self, "declared_capabilities", declared_capabilities)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a GateReport is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a GateReport is immutable (cannot delete {name!r})")

    def _key(self) -> tuple[str, str, tuple[Finding, ...], str]:
        return (self.path, self.sha256, self.findings, self.policy_digest)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, GateReport)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"GateReport(path={self.path!r}, sha256={self.sha256!r}, "
                f"findings={self.findings!r}, policy_digest={self.policy_digest!r}, "
                f"declared_name={self.declared_name!r})")

    def __reduce__(self) -> tuple[type[GateReport], tuple[Any, ...]]:
        return GateReport, tuple(getattr(self, name) for name in _REPORT_FIELDS)

    def replace(self, **changes: Any) -> GateReport:
        """A copy with `changes` (field name -> value), as dataclasses.replace made."""
        fields = {name: getattr(self, name) for name in _REPORT_FIELDS}
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"GateReport has no field {sorted(unknown)[0]!r}")
        return GateReport(**{**fields, **changes})

    @property
    def accepted(self) -> bool:
        return not self.findings

    @property
    def metadata(self) -> ToolMetadata | None:
        """An accepted file's metadata (fresh values on each read); None for a refused
        file. Read it here: never parse the file again."""
        if self.metadata_json is None or self.findings:
            return None
        from dyntools.gate.metadata import metadata_from_json

        return metadata_from_json(self.metadata_json, self.declared_capabilities)

    @property
    def capabilities(self) -> Capabilities | None:
        """What an accepted file declares it reaches through the host (empty when it
        declares nothing); None for a refused file. The host never parses it again."""
        return None if self.findings else self.declared_capabilities

    @property
    def codes(self) -> set[str]:
        return {f.code for f in self.findings}

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "sha256": self.sha256,
            "accepted": self.accepted,
            "policy_digest": self.policy_digest,
            "findings": [f.as_dict() for f in self.findings],
        }


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data` in hex: what identifies a version file everywhere."""
    return hashlib.sha256(data).hexdigest()


def render_text(report: GateReport) -> str:
    """`FILE:LINE:COL: CODE message`, one line per finding (empty when accepted)."""
    from dyntools.base.terminal import terminal_safe

    # Messages quote the file's strings and jsonschema's messages quote schema values: the
    # text rendering is for terminals, so control, bidi and invisible characters are escaped.
    path = terminal_safe(report.path)
    return "\n".join(
        f"{path}:{f.line}:{f.col}: {f.code} {terminal_safe(f.message)}" for f in report.findings
    )


def to_json(reports: Sequence[GateReport]) -> dict[str, Any]:
    return json_document([r.as_dict() for r in reports], all(r.accepted for r in reports))


def json_document(files: list[dict[str, Any]], accepted: bool) -> dict[str, Any]:
    """`to_json`'s document from reports already turned into `as_dict()` (a caller that
    gates many files keeps one small dict per file, not each report's source lines)."""
    return {"accepted": accepted, "files": files}


def _utf16_col(line_text: str | None, col: int) -> int:
    """Convert a 1-based code-point column into a 1-based UTF-16 code-unit column."""
    if not line_text:
        return col
    prefix = line_text[: col - 1]
    return 1 + sum(2 if ord(ch) > 0xFFFF else 1 for ch in prefix)


def _sarif_rules(codes: Iterable[str]) -> list[dict[str, Any]]:
    return [
        {
            "id": rule.code,
            "name": rule.title,
            "shortDescription": {"text": rule.title.replace("-", " ")},
            "fullDescription": {"text": rule.help},
            "defaultConfiguration": {"level": "error"},
            "properties": {"family": rule.family.value, "tags": ["security", rule.family.value]},
        }
        for rule in (RULES[c] for c in codes)
    ]


def to_sarif(reports: Sequence[GateReport], tool_version: str) -> dict[str, Any]:
    """SARIF 2.1.0 for code-scanning tools; every rule is listed in tool.driver.rules."""
    codes = sorted(RULES)
    index = {code: i for i, code in enumerate(codes)}
    results: list[dict[str, Any]] = []
    for report in reports:
        for f in report.findings:
            line_text = (
                report.source_lines[f.line - 1]
                if 0 < f.line <= len(report.source_lines)
                else None
            )
            region: dict[str, Any] = {
                "startLine": max(f.line, 1),
                "startColumn": _utf16_col(line_text, max(f.col, 1)),
            }
            results.append(
                {
                    "ruleId": f.code,
                    "ruleIndex": index[f.code],
                    "level": "error",
                    "message": {"text": f.message},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": _sarif_uri(report.path)},
                                "region": region,
                            }
                        }
                    ],
                    "partialFingerprints": {
                        "dyntools/v1": sha256_hex(
                            f"{report.sha256}:{f.code}:{f.line}:{f.col}".encode()
                        )[:32]
                    },
                }
            )
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "dyntools",
                        "version": tool_version,
                        "rules": _sarif_rules(codes),
                    }
                },
                "columnKind": "utf16CodeUnits",
                "results": results,
            }
        ],
    }


def _sarif_uri(path: str) -> str:
    """A valid URI reference: relative paths stay relative (GitHub resolves them against the
    repository root), absolute ones become file:// URIs; both percent-encoded."""
    from urllib.parse import quote  # SARIF only: checking a file needs no URL code

    if path in ("-", "<stdin>"):
        return "stdin"
    posix = path.replace("\\", "/")
    if posix.startswith("/"):
        return "file://" + quote(posix, safe="/")
    return quote(posix, safe="/")
