"""The gate parses with `ast` and ignores SyntaxWarnings: an invalid escape or `is` with a
literal is no finding, an error filter (`-W error`) does not turn it into a syntax error, and
the warning filters are left as they were."""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from dyntools.gate import check_source

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

TEMPLATE = (Path(__file__).parents[2] / "dyntools" / "generators" / "templates" /
            "slugify_text.py").read_text()
# An invalid escape and a comparison of a literal with `==`: both valid, both warn when
# compiled (`is` with a literal would warn too, but the gate refuses `is` on its own rules).
WARNING_TOOL = (TEMPLATE.replace("\ndef run", '\nPATTERN_NOTE = "\\\\d"\n\n\ndef run', 1)
                + '\n\ndef helper(value):\n    return value == "\\d"\n')


def test_an_error_filter_does_not_turn_warnings_into_findings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        before = list(warnings.filters)
        with pytest.raises(SyntaxError):
            compile(WARNING_TOOL, "<x>", "exec", ast.PyCF_ONLY_AST)  # the filter bites
        report = check_source(WARNING_TOOL)
        assert (report.accepted, report.findings) == (True, ())
        assert warnings.filters == before


def test_the_check_of_a_warning_file_is_quiet_and_accepted_under_w_error(tmp_path: Path,
                                                                           ) -> None:
    tool = tmp_path / "slugify_text.py"
    tool.write_text(WARNING_TOOL)
    for flags in ([], ["-W", "error"]):
        done = subprocess.run([sys.executable, *flags, "-m", "dyntools", "check", str(tool)],
                              capture_output=True, text=True, timeout=60, check=False)
        assert (done.returncode, done.stderr) == (0, ""), (flags, done.stdout)
