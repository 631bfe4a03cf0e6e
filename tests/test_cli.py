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
    with pytest.raises(SystemExit) as info:
        main(["table", "--policy", "nope"])
    assert info.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_module_entry_point():
    done = subprocess.run(
        [sys.executable, "-m", "weaktrace", "table", "--doc"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.splitlines()[0].split()[0] == "bool"


def test_lattice_subcommand_writes_svg_and_png(tmp_path, capsys):
    for name in ("jax.svg", "max.png"):
        out = tmp_path / name
        policy = ["--policy", "max"] if name.startswith("max") else ["--x64"]
        assert main(["lattice", *policy, "--out", str(out)]) == 0
        assert out.stat().st_size > 1000
    assert (tmp_path / "jax.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "max.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["lattice", "--out", "x.pdf"], ".svg or .png"),
        (["lattice", "--policy", "numpy", "--out", "x.svg"], "not a lattice"),
        (["table", "--policy", "numpy", "--strict"], "jax policy only"),
        (["explain", "nodots"], "MODULE:FUNC"),
        (["explain", "no_such_module_xyz:f"], "cannot import"),
        (["explain", "weaktrace:no_such_function"], "no attribute"),
    ],
)
def test_cli_error_paths(capsys, argv, fragment):
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err


def test_explain_subcommand(tmp_path, capsys):
    src = tmp_path / "mod.py"
    src.write_text("import weaktrace.numpy as wnp\ndef f(x, y):\n    return wnp.sqrt(x) * y\n")
    assert main(["explain", f"{src}:f", "--arg", "i8[3]", "--arg", "~f32[]"]) == 0
    out = capsys.readouterr().out
    assert "a:i8[3] b:~f32[]" in out and "sqrt(i8[3]): i8[3] -> f32[3]" in out
    assert main(["explain", f"{src}:f", "--arg", "i8[3]", "--arg", "2.0", "--policy", "numpy"]) == 0
    import numpy as np

    expected = (np.sqrt(np.ones(3, np.int8)) * 2.0).dtype  # numpy's own answer: float16
    assert f"{wt.dtypes.from_numpy(expected).short}[3]" in capsys.readouterr().out
    for bad in ("q8[3]", "f32[a]", "hello"):
        assert main(["explain", f"{src}:f", "--arg", bad, "--arg", "1"]) == 2
        assert "bad" in capsys.readouterr().err


def test_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(cmd in out for cmd in ("table", "lattice", "explain"))
