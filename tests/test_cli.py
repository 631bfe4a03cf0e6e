"""The command line: demo, tables, and its error path."""

from __future__ import annotations

import subprocess
import sys

import pytest

import weaktrace as wt
from weaktrace.__main__ import main
from weaktrace.dtypes import DOC_DTYPES


def test_bare_command_runs_the_demo(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert wt.promotion_table(wt.policy("jax", x64=True), dtypes=DOC_DTYPES) in out
    assert "float64 (weak)" in out  # uint64 + int64 -> f*


@pytest.mark.parametrize(
    ("argv", "policy", "fmt"),
    [
        (["table", "--doc"], wt.policy("jax", x64=False), "text"),
        (["table", "--doc", "--x64", "--format", "md"], wt.policy("jax", x64=True), "markdown"),
        (["table", "--strict"], wt.policy("jax", strict=True, x64=False), "text"),
    ],
)
def test_table_subcommand(capsys, argv, policy, fmt):
    assert main(argv) == 0
    dtypes = DOC_DTYPES if "--doc" in argv else None
    assert capsys.readouterr().out.rstrip("\n") == wt.promotion_table(
        policy, dtypes=dtypes, format=fmt
    )


def test_unknown_policy_is_a_clear_error(capsys):
    assert main(["table", "--policy", "nope"]) == 2
    assert "unknown promotion policy 'nope'" in capsys.readouterr().err


def test_module_entry_point():
    done = subprocess.run(
        [sys.executable, "-m", "weaktrace", "table", "--doc"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.splitlines()[0].split()[0] == "bool"
