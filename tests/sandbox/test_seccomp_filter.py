"""Issue 15: the seccomp program is built without importing pyseccomp (its import runs
`ldconfig -p` twice, 20-30 ms of a cold `dyntools call`), and it is the very program
pyseccomp builds from the same rules, byte for byte."""

from __future__ import annotations

import subprocess
import sys

from dyntools.sandbox.seccomp_filter import reference_program, seccomp_program


def test_the_program_is_the_one_pyseccomp_builds():
    program = seccomp_program()
    assert program == reference_program()
    assert len(program) % 8 == 0 and len(program) // 8 > 50


def test_building_it_imports_neither_pyseccomp_nor_tempfile():
    code = ("import sys; from dyntools.sandbox.seccomp_filter import seccomp_program; "
            "seccomp_program(); print(sorted({'pyseccomp', 'tempfile', 'subprocess'} "
            "& set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
