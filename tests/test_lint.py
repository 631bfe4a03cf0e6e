"""weaktrace.lint on unmodified JAX code: every kind at the user's line (helpers, loop
bodies, branches, nested jits, pytrees), no findings on clean code, a transformer
training step, the CLI's exit codes and formats, SARIF's structure.

Expected lines are never written here: they are the ``# expect(CASE): KIND`` markers in
tests/lint_programs/*.py. Expected dtypes come from jax at test time.
"""

from __future__ import annotations

import inspect
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import ShapeDtypeStruct as S

import weaktrace as wt
from tests.lint_programs import clean, planted, transformer
from weaktrace.__main__ import main
from weaktrace.lint import Finding, LintReport

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"implicit-promotion", "x64-truncation", "weak-flip", "carry-change", "literal-overflow"}
f32, i32, i8, u8, bf16, b_ = jnp.float32, jnp.int32, jnp.int8, jnp.uint8, jnp.bfloat16, jnp.bool_


def markers(module) -> dict[str, set[tuple[str, int]]]:
    """CASE -> {(kind, line)} from the module's ``# expect(CASE): KIND, KIND`` comments."""
    found: dict[str, set[tuple[str, int]]] = {}
    path = Path(inspect.getsourcefile(module))
    for n, text in enumerate(path.read_text().splitlines(), start=1):
        m = re.search(r"# expect\((\w+)\): ([\w\-, ]+)", text)
        if m:
            for kind in m.group(2).split(","):
                found.setdefault(m.group(1), set()).add((kind.strip(), n))
    return found


PLANTED = {
    "helper": ((S((3,), f32), S((3,), i32)), {}),
    "int_plus_float": ((S((3,), i32), S((3,), f32)), {}),
    "int8_times_half": ((S((3,), i8),), {}),
    "bf16_plus_f32": ((S((3,), bf16), S((3,), f32)), {}),
    "where_mixed": ((S((3,), b_), S((3,), i32), S((3,), f32)), {}),
    "matmul_mixed": ((S((2, 3), bf16), S((3, 4), f32)), {}),
    "in_fori": ((S((3,), f32), S((3,), i32)), {}),
    "in_scan": ((S((4,), f32), S((4,), i32)), {}),
    "in_cond": ((S((), b_), S((3,), f32), S((3,), i32)), {}),
    "nested_jit": ((S((3,), f32), S((3,), i32)), {}),
    "pytree_args": (({"w": S((3, 3), f32)}, {"x": S((2, 3), f32), "mask": S((2, 3), i32)}), {}),
    "requested_f64": ((S((3,), f32),), {}),
    "arg_f64": ((np.zeros(3), S((3,), f32)), {}),
    "const_f64": ((S((3,), f32),), {}),
    "uint8_overflow": ((S((3,), u8),), {}),
    "int8_overflow_helper": ((S((3,), i8),), {}),
    "where_overflow": ((S((3,), b_), S((3,), u8)), {}),
    "overflow_in_loop": ((S((3,), u8),), {}),
    "weak_init_fori": ((S((3,), f32),), {}),
    "weak_init_while": ((S((), f32),), {}),
    "weak_init_scan": ((S((3,), f32),), {}),
    "branch_weak": ((S((), b_), S((3,), f32)), {}),
    "carry_dtype_error": ((S((3,), f32),), {}),
    "sgd_momentum": (
        ({"w": 0.0}, {"w": S((), f32)}, {"w": S((), f32)}),
        {"state_argnums": (0, 1)},
    ),
    "ema_state": (({"mean": 0.0, "count": 0}, S((3,), f32)), {"state_argnums": 0}),
    "state_dtype_change": ((S((3,), i32), S((3,), f32)), {"state_argnums": 0}),
    "too_big_literal": ((S((3,), i32),), {}),
    "numpy_scalars": ((S((3,), f32),), {}),
    "in_switch": ((1, S((), f32)), {}),
    "custom_vjp_user": ((S((3,), f32), S((3,), i32)), {}),
    "in_remat": ((S((3,), f32), S((3,), i32)), {}),
    "in_vmap": ((S((3,), f32), S((3,), i32)), {}),
    "under_grad": ((S((3, 3), bf16), S((2, 3), f32)), {}),
    "with_key": ((jax.random.key(0), S((3,), bf16)), {}),
}


def test_every_planted_case_has_markers_and_every_kind_is_planted():
    marks = markers(planted)
    assert set(marks) == set(PLANTED)
    assert {k for m in marks.values() for k, _ in m} == KINDS


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_planted_bug_is_found_at_its_line(case):
    args, kwargs = PLANTED[case]
    report = wt.lint(getattr(planted, case), *args, **kwargs)
    path = inspect.getsourcefile(planted)
    assert {(f.kind, f.line) for f in report} == markers(planted)[case], str(report)
    assert all(f.file == path for f in report)
    for f in report:
        assert str(f) == f"{f.file}:{f.line}: {f.kind}: {f.message}"
        assert f.kind in KINDS and f.message
    assert str(report).splitlines() == [str(f) for f in report]


CLEAN = {
    "weak_scalars": (S((3,), f32), S((3,), i32), S((3,), bf16)),
    "explicit_casts": (S((3,), i32), S((3,), f32), S((3,), bf16)),
    "nn_blocks": (S((2, 4), f32), S((4, 5), f32), S((5,), f32)),
    "layernorm": (S((2, 4), f32), S((4,), f32), S((4,), f32)),
    "attention": (S((2, 5, 8), f32),) * 3,
    "adam_update": (*tuple({"w": S((3,), f32), "b": S((), f32)} for _ in range(4)), S((), i32)),
    "lax_loops": (S((4,), f32), S((), i32)),
    "int_code": (S((3,), i32), S((3,), u8)),
}


@pytest.mark.parametrize("case", sorted(CLEAN))
def test_clean_code_has_no_findings(case):
    report = wt.lint(getattr(clean, case), *CLEAN[case])
    assert not report, str(report)
    assert len(report) == 0 and list(report) == [] and str(report) == ""
    assert report.program is not None and report.program.equations


def test_clean_adam_keeps_its_state_types():
    args = CLEAN["adam_update"]
    assert not wt.lint(clean.adam_update, *args, state_argnums=(0, 2, 3, 4))


# --------------------------------------------------------- generated, jax is the oracle

DTYPES = [b_, i8, u8, jnp.int16, i32, jnp.float16, bf16, f32, jnp.complex64]


def _binary(x, y):
    return x + y


def _line(fn) -> int:
    return inspect.getsourcelines(fn)[1] + 1


def _pairs(full):
    pairs = list(itertools.product(DTYPES, DTYPES))
    return pairs if full else pairs[::5]


def test_binary_op_promotion_is_reported_exactly_when_jax_changes_an_operand(full):
    for a, b in _pairs(full):
        report = wt.lint(_binary, S((3,), a), S((3,), b))
        result = jnp.result_type(a, b)
        expected = result != jnp.dtype(a) or result != jnp.dtype(b)
        got = [f for f in report if f.kind == "implicit-promotion"]
        assert bool(got) == expected, (a, b, str(report))
        assert all(f.line == _line(_binary) for f in got)
        assert all(f.results[0].dtype == result for f in got)


@pytest.mark.parametrize("scalar", [2, 2.0, 1j, True])
def test_weak_scalars_are_findings_only_when_they_change_the_array_dtype(scalar, full):
    for d in DTYPES if full else DTYPES[::2]:
        report = wt.lint(_binary, S((3,), d), scalar)
        result = jnp.result_type(jnp.zeros(3, d), scalar)
        # a Python bool is not weak in jax: it is a finding when it becomes another dtype
        changed = result != jnp.dtype(d) or (isinstance(scalar, bool) and result != jnp.bool_)
        assert bool(report) == changed, (d, scalar, str(report))


INTS = [i8, u8, jnp.int16, jnp.uint16, i32, jnp.uint32, jnp.int4, jnp.uint4]


def test_int_literals_overflow_exactly_outside_the_dtype_range(full):
    values = [-(2**31), -40000, -129, -9, -8, -1, 0, 7, 8, 15, 16, 127, 128, 255, 256, 65535,
              65536, 2**31 - 1]  # fmt: skip
    for d, v in itertools.product(INTS, values if full else values[::3]):
        info = jnp.iinfo(d)  # int4 / uint4 too: weaktrace missed them (numpy's kind is "V")
        report = wt.lint(lambda x, v=v: x + v, S((3,), d))
        got = [f.kind for f in report]
        assert ("literal-overflow" in got) == (not info.min <= v <= info.max), (d, v, got)


# ----------------------------------------------------------------- the imported program


def test_program_prints_with_weak_flags_and_user_lines():
    report = wt.lint(planted.weak_init_fori, S((3,), f32))
    text = str(report.program)
    assert "~f32[]" in text and "scan" in text and "jaxpr={ lambda" in text
    path = inspect.getsourcefile(planted)
    for prog in _walk(report.program):
        for eqn in prog.equations:
            assert eqn.source_info is not None and eqn.source_info.file == path


def _walk(program):
    yield program
    for sub in program.sub_programs():
        yield from _walk(sub)


def test_nested_jit_keeps_its_inner_lines_and_sub_programs():
    report = wt.lint(planted.nested_jit, S((3,), f32), S((3,), i32))
    calls = [e for p in _walk(report.program) for e in p.equations if e.primitive.name == "jit"]
    assert len(calls) >= 2  # the lambda's jit and _jitted_inner's
    ((_, line),) = markers(planted)["nested_jit"]
    top = {e.source_info.line for e in report.program.equations}
    inner = {e.source_info.line for p in _walk(report.program) for e in p.equations}
    assert line in inner and line not in top


def test_findings_carry_operand_and_result_avals():
    (f,) = wt.lint(planted.int_plus_float, S((3,), i32), S((3,), f32))
    assert isinstance(f, Finding)
    assert [a.dtype for a in f.operands] == [jnp.dtype(i32), jnp.dtype(f32)]  # before promotion
    assert f.results[0].dtype == jnp.result_type(i32, f32) and f.function == "int_plus_float"


def test_real_arrays_keyword_arguments_and_jitted_functions():
    x, i = jnp.arange(3.0), jnp.arange(3)
    assert [f.kind for f in wt.lint(planted.int_plus_float, i, x=x)] == ["implicit-promotion"]
    jitted = jax.jit(planted.int_plus_float)
    assert [f.kind for f in wt.lint(jitted, i, x)] == ["implicit-promotion"]


def test_lint_twice_reports_the_same_and_leaves_jax_as_it_was():
    from jax._src.interpreters import partial_eval as pe
    from jax._src.lax import lax as jlax

    before = (jlax._convert_element_type, dict(pe.const_fold_rules))
    first = wt.lint(planted.requested_f64, S((3,), f32))
    jax.make_jaxpr(planted.uint8_overflow)(S((3,), u8))  # warm jax's caches
    assert str(wt.lint(planted.requested_f64, S((3,), f32))) == str(first)
    assert wt.lint(planted.uint8_overflow, S((3,), u8)).kinds() == ["literal-overflow"]
    assert (jlax._convert_element_type, dict(pe.const_fold_rules)) == before
    assert not jax.config.jax_enable_x64


def test_x64_context_of_the_caller_does_not_change_the_verdict():
    with jax.enable_x64(True):
        report = wt.lint(planted.requested_f64, S((3,), f32))
        assert jax.config.jax_enable_x64
    assert report.kinds() == ["x64-truncation"]


def test_state_argnums_must_name_arguments():
    with pytest.raises(ValueError, match="state_argnums 3"):
        wt.lint(planted.state_dtype_change, S((3,), i32), S((3,), f32), state_argnums=3)


def test_errors_of_the_user_function_propagate():
    with pytest.raises(TypeError, match="incompatible shapes"):
        wt.lint(planted.int_plus_float, S((3,), i32), S((4,), f32))


# --------------------------------------------------------------------- transformer step


def _train_args(buggy: bool):
    params = transformer.init_params(jax.random.key(0))
    state = transformer.adam_init(params)
    if buggy:
        state = dict(state, scale=1.0)
    tokens = jnp.zeros((2, transformer.SEQ), jnp.int32)
    return params, state, tokens, tokens


def test_transformer_training_step_is_clean_and_fully_located():
    report = wt.lint(transformer.train_step, *_train_args(False), state_argnums=(0, 1))
    assert not report, str(report)
    eqns = [e for p in _walk(report.program) for e in p.equations]
    assert len(eqns) > 500
    assert all(e.source_info is not None for e in eqns)
    assert not any("site-packages" in e.source_info.file for e in eqns)


def test_transformer_with_planted_bugs():
    report = wt.lint(transformer.train_step_buggy, *_train_args(True), state_argnums=(0, 1))
    assert {(f.kind, f.line) for f in report} == markers(transformer)["train_step_buggy"]


# ------------------------------------------------------------------------- report formats


def _report() -> LintReport:
    return wt.lint(planted.state_dtype_change, S((3,), i32), S((3,), f32), state_argnums=0)


def test_json_round_trips_the_findings():
    report = _report()
    data = json.loads(report.to_json())
    assert [(d["kind"], d["file"], d["line"], d["message"]) for d in data["findings"]] == [
        (f.kind, f.file, f.line, f.message) for f in report
    ]
    assert all(isinstance(a, str) for d in data["findings"] for a in d["operands"])


# The parts of the SARIF 2.1.0 schema (OASIS, sarif-schema-2.1.0.json) that our logs use,
# written from the specification: required properties, types, enums and, as the official
# schema has, no properties beyond those defined.
_MESSAGE = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
    "additionalProperties": False,
}
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "additionalProperties": False,
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"enum": ["2.1.0"]},
        "runs": {"type": "array", "items": {"$ref": "#/definitions/run"}},
    },
    "definitions": {
        "run": {
            "type": "object",
            "required": ["tool"],
            "additionalProperties": False,
            "properties": {
                "tool": {
                    "type": "object",
                    "required": ["driver"],
                    "additionalProperties": False,
                    "properties": {"driver": {"$ref": "#/definitions/driver"}},
                },
                "results": {"type": "array", "items": {"$ref": "#/definitions/result"}},
            },
        },
        "driver": {
            "type": "object",
            "required": ["name"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string"},
                "version": {"type": "string"},
                "rules": {
                    "type": "array",
                    "uniqueItems": True,
                    "items": {
                        "type": "object",
                        "required": ["id"],
                        "additionalProperties": False,
                        "properties": {
                            "id": {"type": "string"},
                            "name": {"type": "string"},
                            "shortDescription": _MESSAGE,
                            "defaultConfiguration": {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {
                                    "level": {"enum": ["none", "note", "warning", "error"]}
                                },
                            },
                        },
                    },
                },
            },
        },
        "result": {
            "type": "object",
            "required": ["message"],
            "additionalProperties": False,
            "properties": {
                "ruleId": {"type": "string"},
                "ruleIndex": {"type": "integer", "minimum": -1},
                "level": {"enum": ["none", "note", "warning", "error"]},
                "message": _MESSAGE,
                "locations": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "physicalLocation": {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {
                                    "artifactLocation": {
                                        "type": "object",
                                        "additionalProperties": False,
                                        "properties": {
                                            "uri": {"type": "string", "format": "uri-reference"}
                                        },
                                    },
                                    "region": {
                                        "type": "object",
                                        "additionalProperties": False,
                                        "properties": {
                                            "startLine": {"type": "integer", "minimum": 1}
                                        },
                                    },
                                },
                            }
                        },
                    },
                },
            },
        },
    },
}


def test_sarif_validates_and_points_at_the_lines():
    jsonschema = pytest.importorskip("jsonschema")
    report = _report()
    log = json.loads(report.to_sarif())
    jsonschema.validate(log, SARIF_SUBSET, format_checker=jsonschema.FormatChecker())
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} == KINDS
    for res, f in zip(run["results"], report, strict=True):
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"] == f.kind
        loc = res["locations"][0]["physicalLocation"]
        assert loc["region"]["startLine"] == f.line
        assert Path(loc["artifactLocation"]["uri"]).resolve() == Path(f.file).resolve()
    with pytest.raises(jsonschema.ValidationError):  # the check can fail
        jsonschema.validate(dict(log, version="2.0.0"), SARIF_SUBSET)


# ---------------------------------------------------------------------------------- CLI

TARGET = "tests.lint_programs.planted"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_exit_1_with_findings_as_text(capsys):
    code, out, err = run(capsys, "lint", f"{TARGET}:helper", "--arg", "f32[3]", "--arg", "i32[3]")
    expected = wt.lint(planted.helper, S((3,), f32), S((3,), i32))
    assert code == 1 and err == ""
    assert out.strip() == str(expected)


def test_cli_exit_0_when_clean(capsys):
    code, out, _ = run(capsys, "lint", "tests.lint_programs.clean:weak_scalars",
                       "--arg", "f32[3]", "--arg", "i32[3]", "--arg", "bf16[]")  # fmt: skip
    assert (code, out) == (0, "")


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_cli_formats_and_state_argnums(capsys, fmt):
    code, out, _ = run(capsys, "lint", f"{TARGET}:ema_state", "--arg", "{'mean': 0.0}",
                       "--arg", "f32[3]", "--state-argnums", "0", "--format", fmt)  # fmt: skip
    assert code == 2  # dict literals are not --arg specs
    code, out, _ = run(capsys, "lint", f"{TARGET}:state_dtype_change", "--arg", "i32[3]",
                       "--arg", "f32[3]", "--state-argnums", "0", "--format", fmt)  # fmt: skip
    assert code == 1
    data = json.loads(out)
    kinds = (
        [d["kind"] for d in data["findings"]]
        if fmt == "json"
        else [r["ruleId"] for r in data["runs"][0]["results"]]
    )
    assert sorted(kinds) == ["implicit-promotion", "weak-flip"]


def test_cli_arg_specs(capsys):
    from weaktrace.lint.cli import parse_arg

    assert parse_arg("i8[2,3]") == S((2, 3), i8)
    assert parse_arg("bf16[]") == S((), bf16)
    assert parse_arg("~f32[]").weak_type
    assert [parse_arg(t) for t in ("2.0", "3", "True")] == [2.0, 3, True]
    code, _, _ = run(capsys, "lint", f"{TARGET}:int8_times_half", "--arg", "i8[3]")
    assert code == 1
    code, _, _ = run(capsys, "lint", f"{TARGET}:int8_times_half", "--arg", "f32[3]")
    assert code == 0


@pytest.mark.parametrize(
    "argv",
    [
        [f"{TARGET}:helper", "--arg", "f33[3]", "--arg", "i32[3]"],
        [f"{TARGET}:helper", "--arg", "f32[3", "--arg", "i32[3]"],
        [f"{TARGET}:helper", "--arg", "hello", "--arg", "i32[3]"],
        ["no_such_module_xyz:f", "--arg", "f32[3]"],
        [f"{TARGET}:no_such_function", "--arg", "f32[3]"],
        [f"{TARGET}", "--arg", "f32[3]"],
        [f"{TARGET}:helper", "--arg", "f32[3]", "--arg", "i32[4]"],
        [f"{TARGET}:helper", "--arg", "f32[3]"],
        [f"{TARGET}:helper", "--arg", "f32[3]", "--arg", "i32[3]", "--state-argnums", "x"],
        [f"{TARGET}:helper", "--arg", "f32[3]", "--arg", "i32[3]", "--state-argnums", "5"],
    ],
)
def test_cli_usage_errors_exit_2_with_one_line(capsys, argv):
    code, out, err = run(capsys, "lint", *argv)
    assert code == 2 and out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err


def test_cli_as_a_process():
    cmd = [sys.executable, "-m", "weaktrace", "lint", f"{TARGET}:uint8_overflow", "--arg", "u8[3]"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "literal-overflow" in proc.stdout and "planted.py:" in proc.stdout
