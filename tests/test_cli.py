"""The command line: demo, tables, drawing, explain, and every error path.

A user mistake must end in one line, ``error: ...``, exit status 2 and no traceback.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
from weaktrace.__main__ import main
from weaktrace.dtypes import DOC_DTYPES, registry

ROOT = Path(__file__).resolve().parent.parent


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(code: int, out: str, err: str) -> str:
    """The contract of every user mistake: status 2, nothing on stdout, one error line."""
    assert code == 2, (code, out, err)
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


# ------------------------------------------------------------------------------ demo


def test_bare_command_runs_the_demo_and_says_which_x64_it_uses(capsys):
    code, out, _ = run(capsys)
    assert code == 0
    assert wt.promotion_table(wt.policy("jax", x64=True), dtypes=DOC_DTYPES) in out
    assert "promotion table with x64 on" in out
    assert "float64 (weak)" in out  # uint64 + int64 -> f*, x64 on
    assert "Tracing follows jax's config, here x64 off" in out


@pytest.mark.parametrize("x64", [False, True])
def test_demo_trace_uses_the_x64_mode_it_names(capsys, x64):
    with jax.enable_x64(x64):
        assert main([]) == 0
        expected = (jnp.sin(jnp.arange(4, dtype=jnp.int8) * 0.5) / 3).dtype  # jax's answer
    out = capsys.readouterr().out
    said = re.search(r"Tracing follows jax's config, here x64 (on|off)", out)
    assert said and said.group(1) == ("on" if x64 else "off")
    program = out.split("A traced function", 1)[1]
    short = wt.dtypes.from_numpy(expected).short
    assert f"~{short}[4] = div" in program


# ----------------------------------------------------------------------------- table


@pytest.mark.parametrize(
    ("argv", "policy", "fmt"),
    [
        (["table", "--doc"], wt.policy("jax", x64=False), "text"),
        (["table", "--doc", "--x64", "--format", "md"], wt.policy("jax", x64=True), "markdown"),
        (["table", "--doc", "--format", "markdown"], wt.policy("jax", x64=False), "markdown"),
        (["table", "--strict", "--all"], wt.policy("jax", strict=True, x64=False), "text"),
        (["table", "--x64", "--format", "md"], wt.policy("jax", x64=True), "markdown"),
    ],
)
def test_table_subcommand(capsys, argv, policy, fmt):
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    dtypes = DOC_DTYPES if "--doc" in argv else None
    assert out.rstrip("\n") == wt.promotion_table(policy, dtypes=dtypes, format=fmt)


def _shown(out: str) -> list[str]:
    return out.splitlines()[0].split()


@pytest.mark.parametrize("policy", ["jax", "numpy", "torch", "max"])
def test_table_fits_the_width_and_says_what_it_left_out(capsys, policy):
    every = _shown(run(capsys, "table", "--all", "--policy", policy)[1])
    previous = 0
    for width in (24, 40, 60, 80, 100, 120, 200, 400):
        code, out, err = run(capsys, "table", "--policy", policy, "--width", str(width))
        assert code == 0
        shown = _shown(out)
        assert len(shown) >= previous, "a wider terminal never shows fewer dtypes"
        previous = len(shown)
        if len(shown) > 2:  # two dtypes is the floor, however narrow the terminal
            assert max(map(len, out.splitlines())) <= width
        assert shown == [d for d in every if d in shown], "rows keep the registry's order"
        expected = wt.promotion_table(policy if policy != "jax" else wt.policy("jax", x64=False),
                                      dtypes=shown)  # fmt: skip
        assert out.rstrip("\n") == expected
        left = [d for d in every if d not in shown]
        if left:
            note = " ".join(err.split())  # wrapped to the width
            assert f"showing {len(shown)} of {len(every)} dtypes to fit {width} columns" in note
            assert note.split("left out: ")[1].split(". ")[0].split() == left
            assert "--all" in note
            assert max(map(len, err.splitlines())) <= max(width, 40)
        else:
            assert err == ""
    assert previous == len(every)


def test_table_default_subset_keeps_the_everyday_dtypes(capsys):
    code, out, _ = run(capsys, "table", "--width", "80")
    assert code == 0
    assert {"bool", "i32", "f32", "i*", "f*", "i8", "u8", "f16", "bf16"} <= set(_shown(out))
    code, out, _ = run(capsys, "table", "--policy", "max", "--width", "60")
    assert {"index", "addr", "tf32"} <= set(_shown(out)), "a policy's own dtypes stay"


def test_table_width_defaults_to_the_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "50")
    code, out, err = run(capsys, "table")
    assert (
        code == 0 and max(map(len, out.splitlines())) <= 50 and "left out" in " ".join(err.split())
    )


def test_table_dtypes_option(capsys):
    code, out, _ = run(capsys, "table", "--dtypes", "int8, float32,f*,bf16")
    assert code == 0
    assert out.rstrip("\n") == wt.promotion_table(
        wt.policy("jax", x64=False), dtypes=["int8", "float32", "float", "bfloat16"]
    )


@pytest.mark.parametrize("x64", [False, True])
def test_table_csv_and_json_agree_with_jax(capsys, x64):
    flags = ["--x64"] if x64 else []
    code, out, _ = run(capsys, "table", "--format", "csv", *flags)
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    header = rows[0][1:]
    code, out, _ = run(capsys, "table", "--format", "json", *flags)
    doc = json.loads(out)
    assert doc["dtypes"] == header and set(doc["weak"]) == {"int", "float", "complex"}
    with jax.enable_x64(x64):
        for row in rows[1:]:
            a = row[0]
            for b, cell in zip(header, row[1:], strict=True):
                assert doc["table"][a][b] == (cell or None)
                if registry.by_name(a).weak or registry.by_name(b).weak:
                    continue
                da, db = (registry.by_name(n).numpy for n in (a, b))
                try:
                    expected = jnp.promote_types(da, db)
                except jax.dtypes.TypePromotionError:  # jax has no implicit promotion
                    assert cell == "", (a, b)
                    continue
                # a weak result (uint64 + int8 -> f*) is jax's default dtype of that kind
                assert registry.by_name(cell).numpy == expected, (a, b)


def test_module_entry_point():
    done = subprocess.run(
        [sys.executable, "-m", "weaktrace", "table", "--doc"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.splitlines()[0].split()[0] == "bool"


def test_a_closed_pipe_is_not_a_traceback():
    for argv in (["table", "--all"], []):  # one flushes as it prints, the demo at exit
        p = subprocess.Popen(
            [sys.executable, "-m", "weaktrace", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        assert p.stdout is not None and p.stderr is not None
        p.stdout.close()  # `| head -0`: the reader is gone before the first line
        err = p.stderr.read().decode()
        p.wait()
        assert "Traceback" not in err and "Exception ignored" not in err, err


# --------------------------------------------------------------------------- lattice


def test_lattice_subcommand_writes_svg_and_png(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="drawing needs the draw extra")
    for name in ("jax.svg", "max.png"):
        out = tmp_path / name
        policy = ["--policy", "max"] if name.startswith("max") else ["--x64"]
        assert main(["lattice", *policy, "--out", str(out)]) == 0
        assert out.stat().st_size > 1000
    assert (tmp_path / "jax.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "max.png").read_bytes()[:4] == b"\x89PNG"


# --------------------------------------------------------------------------- explain

TARGET = """
import jax
import jax.numpy as jnp
import weaktrace as wt
import weaktrace.numpy as wnp

def f(x, y):
    return wnp.sqrt(x) * y

def raises(x):
    raise RuntimeError("kaboom")

def calls_jax(x):
    return jnp.sin(x) + 1

def calls_jax_nn(x):
    return jax.nn.relu(x)

def bad_shapes(x):
    return wnp.ones(3) + wnp.ones(4)

def keyword_only(x, *, y):
    return x * y

@wt.trace(static_argnums=1)
def scaled(x, n):
    return x * n

NOT_A_FUNCTION = 3
"""


@pytest.fixture
def target(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text(TARGET)
    return src


def test_explain_subcommand(target, capsys):
    code, out, _ = run(capsys, "explain", f"{target}:f", "--arg", "i8[3]", "--arg", "~f32[]")
    assert code == 0
    assert "a:i8[3] b:~f32[]" in out and "sqrt(i8[3]): i8[3] -> f32[3]" in out
    code, out, _ = run(capsys, "explain", f"{target}:f", "--arg", "i8[3]", "--arg", "2.0",
                       "--policy", "numpy")  # fmt: skip
    expected = (np.sqrt(np.ones(3, np.int8)) * 2.0).dtype  # numpy's own answer
    assert code == 0 and f"{wt.dtypes.from_numpy(expected).short}[3]" in out


def test_explain_a_traced_function_keeps_its_static_args(target, capsys):
    code, out, _ = run(capsys, "explain", f"{target}:scaled", "--arg", "f32[3]", "--arg", "3")
    assert code == 0 and "mul a 3.0:f32[]" in out


def test_explain_finds_a_module_by_name_from_the_working_directory(target, capsys, monkeypatch):
    monkeypatch.chdir(target.parent)
    monkeypatch.syspath_prepend(str(target.parent))
    code, out, _ = run(capsys, "explain", "mod:f", "--arg", "f32[2]", "--arg", "1")
    assert code == 0 and "a:f32[2] b:~i32[]" in out


def test_explain_traceback_option_shows_the_users_frame(target, capsys):
    code = main(["explain", f"{target}:raises", "--arg", "f32[3]", "--traceback"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" in err and 'raise RuntimeError("kaboom")' in err


def _error_cases(target: Path, tmp: Path) -> list[tuple[list[str], list[str]]]:
    """One case per error path: argv, and the fragments its one error line must hold."""
    t = str(target)
    (tmp / "broken_import.py").write_text("import not_a_module_anywhere_xyz\n")
    (tmp / "syntax.py").write_text("def f(:\n")
    return [
        (["explain", f"{t}:f", "--arg", "f32[3]"], ["takes (x, y)", "got 1 --arg", "one --arg"]),
        (["explain", f"{t}:f", "--arg", "1", "--arg", "2", "--arg", "3"], ["got 3 --arg"]),
        (["explain", f"{t}:keyword_only", "--arg", "1"], ["keyword-only", "(y)"]),
        (["explain", f"{t}:raises", "--arg", "f32[3]"],
         ["RuntimeError: kaboom", "mod.py:11 in raises", "--traceback"]),
        (["explain", f"{t}:calls_jax", "--arg", "f32[3]"],
         ["hands a weaktrace value", "jnp.sin(x)", "weaktrace.numpy.sin"]),
        (["explain", f"{t}:calls_jax_nn", "--arg", "f32[3]"], ["jax.nn.relu(x)", "jax.nn"]),
        (["explain", f"{t}:bad_shapes"], ["takes (x)", "got 0 --arg"]),
        (["explain", f"{t}:bad_shapes", "--arg", "1"], ["incompatible shapes", "mod.py:20"]),
        (["explain", f"{t}:NOT_A_FUNCTION"], ["type int, not a function"]),
        (["explain", f"{t}:no_such_function"], ["no attribute 'no_such_function'", "f, "]),
        (["explain", "nodots"], ["MODULE:FUNC"]),
        (["explain", "no_such_module_xyz:f"], ["cannot import", "no module named"]),
        (["explain", f"{tmp}/missing.py:f"], ["no such file"]),
        (["explain", f"{tmp}/broken_import.py:f"],
         ["importing", "No module named 'not_a_module_anywhere_xyz'", "Fix the module"]),
        (["explain", f"{tmp}/syntax.py:f"], ["SyntaxError", "syntax.py:1"]),
        (["explain", f"{t}:f", "--arg", "q8[3]", "--arg", "1"], ["bad type string 'q8[3]'"]),
        (["explain", f"{t}:f", "--arg", "f32[a]", "--arg", "1"], ["bad --arg 'f32[a]'"]),
        (["explain", f"{t}:f", "--arg", "hello", "--arg", "1"], ["bad --arg 'hello'"]),
        (["explain", f"{t}:f", "--arg", "1", "--arg", "1", "--policy", "torch", "--x64"],
         ["jax policy"]),
        (["lattice", "--out", "x.pdf"], [".svg or .png"]),
        (["lattice", "--out", str(tmp / "no" / "dir" / "x.svg")], ["does not exist"]),
        (["lattice", "--out", f"{target}/x.svg"], ["cannot write"]),  # a file as a directory
        (["lattice", "--policy", "numpy", "--out", "x.svg"], ["not a lattice"]),
        (["table", "--policy", "numpy", "--strict"], ["jax policy"]),
        (["table", "--dtypes", "q8"], ["bad --dtypes entry 'q8'", "known:"]),
        (["table", "--dtypes", ","], ["--dtypes is empty"]),
        (["table", "--policy", "max", "--dtypes", "f*"], ["not in this policy's table"]),
        (["table", "--format", "json", "--width", "80"], ["--format text only"]),
        (["table", "--width", "0"], ["N >= 1"]),
    ]  # fmt: skip


def test_every_error_path_is_one_line(target, tmp_path, capsys):
    for argv, fragments in _error_cases(target, tmp_path):
        line = one_error_line(*run(capsys, *argv))
        for fragment in fragments:
            assert fragment in line, (argv, line)


def test_unwritable_out_file(tmp_path, capsys):
    (tmp_path / "taken.svg").mkdir()  # a directory where the file should go
    line = one_error_line(*run(capsys, "lattice", "--out", str(tmp_path / "taken.svg")))
    assert "cannot write" in line and "writable --out" in line


def test_argparse_errors_exit_2_without_traceback(capsys):
    for argv in (["table", "--policy", "nope"], ["table", "--doc", "--all"], ["frobnicate"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert "error:" in err and "Traceback" not in err


def test_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert all(cmd in out for cmd in ("table", "lattice", "explain"))


def test_version(capsys):
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.startswith(f"weaktrace {wt.__version__} (jax {jax.__version__}")


# ----------------------------------------------------------------- without extras

# Runs the CLI with the optional packages made unimportable, as after `pip install .`
WITHOUT_EXTRAS = textwrap.dedent(
    """
    import contextlib, io, json, sys

    BLOCKED = {"matplotlib", "torch", "nbclient", "nbformat", "IPython", "ipykernel", "sphinx"}

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, Block())
    from weaktrace.__main__ import main

    results = []
    for argv in json.loads(sys.argv[1]):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as e:
                code = e.code
        results.append([code, out.getvalue(), err.getvalue()])
    print(json.dumps(results))
    print(sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED))
    """
)


def test_every_command_works_or_names_its_extra_without_extras(target, tmp_path):
    commands = [
        [],
        ["table"],
        ["table", "--format", "json"],
        ["explain", f"{target}:f", "--arg", "f32[3]", "--arg", "2.0"],
        ["lattice", "--out", str(tmp_path / "l.svg")],
        ["lattice", "--out", str(tmp_path / "l.png")],
    ]
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRAS, json.dumps(commands)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    results_line, loaded = done.stdout.strip().splitlines()[-2:]
    results = json.loads(results_line)
    assert loaded == "[]", "no optional package was imported"
    for argv, (code, out, err) in zip(commands, results, strict=True):
        if argv[:1] == ["lattice"]:
            line = one_error_line(code, out, err)
            assert 'pip install "weaktrace[draw]"' in line and "matplotlib" in line
            assert not Path(argv[-1]).exists()
        else:
            assert code == 0 and out and "Traceback" not in err, (argv, err)
