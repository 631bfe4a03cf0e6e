"""weaktrace.lint's gaps closed in session 7: the warnings machinery stays the user's,
jax.numpy's own inexact conversions are not promotions while strong operands of two
dtypes are (whatever function joins them), and a loop or cond jax refuses is reported
at the body's line. jax is the oracle: expected dtypes and verdicts are computed here
from ``jnp.result_type``, never pasted.
"""

from __future__ import annotations

import inspect
import re
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import ShapeDtypeStruct as S
from jax._src.numpy import ufuncs as jax_ufuncs

import weaktrace as wt
from tests.lint_programs import planted, refused

f32 = jnp.float32

# ------------------------------------------------------------ the user's warnings state


def _warns(x):
    warnings.warn("weaktrace-lint-gaps: the user's own warning", UserWarning, stacklevel=1)
    return x.astype(jnp.float64)  # a requested 64-bit dtype: jax warns, lint records it


def _warn_here():
    warnings.warn("weaktrace-lint-gaps: once per location", UserWarning, stacklevel=1)


def test_lint_leaves_the_warning_filters_and_registries_as_they_were():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")  # shown once per location
        _warn_here()
        filters, before = warnings.filters, list(warnings.filters)
        report = wt.lint(planted.requested_f64, S((3,), f32))
        assert warnings.filters is filters and warnings.filters == before
        _warn_here()  # lint did not reset the registry: still shown once only
    assert report.kinds() == ["x64-truncation"]
    assert [str(w.message) for w in seen] == ["weaktrace-lint-gaps: once per location"]


def test_the_users_filters_hold_during_lint_and_x64_is_found_under_any_of_them():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("ignore")
        report = wt.lint(_warns, S((3,), f32))
    assert not seen  # ignored by the user: lint shows nothing
    assert report.kinds() == ["x64-truncation"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            wt.lint(_warns, S((3,), f32))
        except UserWarning as err:  # the user's "error" filter holds for their warning
            assert "the user's own warning" in str(err)
        else:
            raise AssertionError("the user's warning was not raised under their filter")
        # jax's requested-dtype warning is lint's to record, not an error
        assert wt.lint(planted.requested_f64, S((3,), f32)).kinds() == ["x64-truncation"]


def _asks_f64_elsewhere(x):
    # another thread's jax code during the trace: its warning is the user's to see
    worker = threading.Thread(target=lambda: jnp.zeros(3, jnp.float64))
    worker.start()
    worker.join()
    return x + 1


def test_another_threads_requested_dtype_warning_reaches_the_user_not_the_report():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        report = wt.lint(_asks_f64_elsewhere, S((3,), f32))
    assert not report, str(report)
    texts = [(str(w.message), w.filename) for w in seen]
    assert any("Explicitly requested dtype float64" in t for t, _ in texts), texts
    # still attributed where jax attributes it (the stand-in adds no frame)
    with warnings.catch_warnings(record=True) as direct:
        warnings.simplefilter("always")
        worker = threading.Thread(target=lambda: jnp.zeros(3, jnp.float64))
        worker.start()
        worker.join()
    assert {f for t, f in texts if "float64" in t} == {w.filename for w in direct}


# -------------------------------- jax.numpy's own inexact conversion vs. a real promotion


def _family(n: int) -> list[str]:
    """jax.numpy's elementwise functions of `n` array operands (its ufuncs module: the
    users of promote_args / promote_args_inexact / promote_args_numeric)."""
    names = []
    for name in sorted(dir(jnp)):
        fn = getattr(jnp, name)
        if isinstance(fn, jnp.ufunc):
            if fn.nin == n:
                names.append(name)
            continue
        try:
            source = inspect.getsourcefile(inspect.unwrap(fn))
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            continue
        operands = [p for p in params if p.kind is p.POSITIONAL_ONLY and p.default is p.empty]
        if source == jax_ufuncs.__file__ and len(operands) == n:
            names.append(name)
    return names


def _lint_call(name: str, args: tuple, consts: tuple = ()) -> wt.LintReport | None:
    """lint of ``jnp.<name>(*args, *consts)`` (consts closed over: numpy scalars are
    strong constants, Python scalars weak), or None when jax refuses the operands."""
    fn = getattr(jnp, name)

    def call(*xs):
        return fn(*xs, *consts)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # jax's deprecation warnings of some names
            jax.eval_shape(call, *args)
    except Exception:  # jax refuses these operands (each its own error class)
        return None
    return wt.lint(call, *args)


_SOURCE, _START = inspect.getsourcelines(_lint_call)
_CALL_LINE = next(n for n, t in enumerate(_SOURCE, _START) if "return fn(*xs" in t)


def _promotes(operands: Sequence) -> bool:
    """jax's verdict: a strong operand whose dtype is not the operands' joined dtype."""
    joined = jnp.result_type(*operands)
    strong = [o for o in operands if not isinstance(o, bool | int | float | complex)]
    return any(jnp.dtype(o.dtype) != joined for o in strong)


def test_the_families_are_the_ones_the_gaps_were_found_in():
    unary, binary = set(_family(1)), set(_family(2))
    assert {"deg2rad", "radians", "rad2deg", "degrees", "spacing", "sin", "exp", "log"} <= unary
    assert {"sqrt", "reciprocal", "sinc", "cbrt"} <= unary
    assert {"arctan2", "hypot", "logaddexp", "power", "true_divide", "copysign"} <= binary
    assert {"nextafter", "float_power", "heaviside", "add", "less"} <= binary


@pytest.mark.parametrize("dtype", [jnp.int32, jnp.uint8, jnp.int8, jnp.bool_])
def test_a_function_making_its_integer_operand_inexact_is_not_a_promotion(dtype):
    x = S((3,), dtype)
    checked = 0
    for name in _family(1):
        report = _lint_call(name, (x,))
        if report is None:
            continue
        checked += 1
        assert not _promotes([x])  # one operand: jnp.result_type is its own dtype
        assert "implicit-promotion" not in report.kinds(), (name, str(report))
    assert checked > 40
    # reductions that make integers floating, also over two operands of one dtype
    for fn in (jnp.mean, jnp.var, jnp.std, jnp.nanmean, jnp.average, jnp.median):
        assert not wt.lint(fn, x), fn
    for name in _family(2):
        report = _lint_call(name, (x, x))
        assert report is None or "implicit-promotion" not in report.kinds(), (name, str(report))


def test_no_jax_numpy_function_of_one_integer_array_is_a_promotion():
    # jnp.unwrap(p) joins p with jax's own weak default period=2*pi: not the user's
    x, checked = S((4,), jnp.int32), 0
    for name in sorted(n for n in dir(jnp) if not n.startswith("_")):
        fn = getattr(jnp, name)
        if not callable(fn) or isinstance(fn, type) or name in ("vectorize", "from_dlpack"):
            continue
        report = _lint_call(name, (x,))
        if report is not None:
            checked += 1
            assert "implicit-promotion" not in report.kinds(), (name, str(report))
    assert checked > 150
    # a weak float the user passes is theirs, as in i32 * 0.5
    report = wt.lint(lambda p: jnp.unwrap(p, period=6.0), x)
    assert _promotes([x, 6.0]) and report.kinds() == ["implicit-promotion"]
    assert not wt.lint(lambda p: jnp.unwrap(p, axis=0), x)  # an int argument joins nothing


def test_jax_numpys_own_constants_are_not_the_users_operands():
    # jnp.select stacks its own False with the conditions: float conditions are joined
    # with a bool jax made, not one the user passed
    c, x = S((3,), f32), S((3,), f32)
    assert not _promotes([c, x])
    assert not wt.lint(lambda c, x: jnp.select([c], [x]), c, x)
    # the user's own constants still count: a numpy int32 choice beside float32 ones
    report = wt.lint(lambda c, x: jnp.select([c], [np.int32(1)], x), c, x)
    assert _promotes([x, np.int32(1)]) and report.kinds() == ["implicit-promotion"]


i32, f32a, i8, u8, bf16 = (S((3,), d) for d in (jnp.int32, f32, jnp.int8, jnp.uint8, jnp.bfloat16))
# (traced operands, closed-over constants): strong pairs, weak Python scalars, numpy scalars
BINARY_CASES = [
    ((i32, i32), ()),
    ((i32, f32a), ()),
    ((f32a, i32), ()),
    ((i8, u8), ()),
    ((bf16, f32a), ()),
    ((i32,), (2.0,)),
    ((i32,), (2,)),
    ((f32a,), (2,)),
    ((bf16,), (2.0,)),
    ((i32,), (np.float32(2),)),
    ((f32a,), (np.int32(2),)),
    ((i32,), (np.int32(2),)),
]


def test_binary_functions_report_exactly_when_jax_joins_two_dtypes():
    checked = 0
    for name in _family(2):
        if name == "ldexp":  # its second operand is an integer exponent, never joined
            continue
        for args, consts in BINARY_CASES:
            if name in ("power", "pow") and consts and isinstance(consts[0], np.integer):
                continue  # a concrete integer exponent: lax.integer_pow, nothing converted
            report = _lint_call(name, args, consts)
            if report is None:
                continue
            checked += 1
            got = [f for f in report if f.kind == "implicit-promotion"]
            assert bool(got) == _promotes([*args, *consts]), (name, args, consts, str(report))
            # at the user's call, wherever in jax the operands met
            assert {(f.file, f.line) for f in report} <= {(__file__, _CALL_LINE)}, str(report)
    assert checked > 300


def _deg(i):
    return jnp.deg2rad(i)


def _by_numpy_scalar(i):
    return i / np.float32(2)  # a strong float32 constant meets an int32 array


def _hypot(i, x):
    return jnp.hypot(i, x)


def test_the_reported_cases_at_the_users_line():
    assert not wt.lint(_deg, S((3,), jnp.int32))
    for fn, args in ((_by_numpy_scalar, (i32,)), (_hypot, (i32, f32a))):
        report = wt.lint(fn, *args)
        line = inspect.getsourcelines(fn)[1] + 1
        assert [(f.kind, f.line) for f in report] == [("implicit-promotion", line)], str(report)
        assert "int32" in report[0].message or "i32" in report[0].message


def test_a_weak_scalar_in_a_contraction_takes_the_arrays_dtype():
    # jnp.dot(x, 2) hands dot_general a weak int beside the float array: as x * 2
    assert not _promotes([f32a, 2])
    assert not wt.lint(lambda x: jnp.dot(x, 2), f32a)
    # a weak float still makes an integer array floating, as i8 * 0.5
    assert _promotes([i32, 2.5])
    assert wt.lint(lambda i: jnp.dot(i, 2.5), i32).kinds() == ["implicit-promotion"]


# ------------------------------------------------------ refused loops: the body's line

I32 = S((), jnp.int32)
REFUSED = {
    "while_body": (I32,),
    "fori_body": (I32,),
    "fori_dynamic": (I32, I32),
    "scan_body": (S((3,), f32),),
    "pytree_carry": (I32,),
    "nested_loops": (I32,),
    "cond_branches": (S((), jnp.bool_), I32),
    "switch_branches": (I32, I32),
}


def _marked(module, tag: str) -> dict[str, int]:
    """CASE -> line of the module's ``# tag(CASE)`` comment."""
    found = {}
    path = Path(inspect.getsourcefile(module))
    for n, text in enumerate(path.read_text().splitlines(), start=1):
        m = re.search(rf"# {tag}\((\w+)\)", text)
        if m:
            found[m.group(1)] = n
    return found


def test_every_refused_case_is_marked():
    assert set(_marked(refused, "expect")) == set(REFUSED) == set(_marked(refused, "call"))


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_refused_loop_or_cond_is_found_at_the_bodys_line(case):
    fn, args = getattr(refused, case), REFUSED[case]
    with pytest.raises(TypeError):  # jax refuses it: the oracle that this is a refusal
        jax.make_jaxpr(fn)(*args)
    report = wt.lint(fn, *args)
    body, call = _marked(refused, "expect")[case], _marked(refused, "call")[case]
    assert [(f.kind, f.line) for f in report] == [("carry-change", body)], str(report)
    assert report[0].file == inspect.getsourcefile(refused)
    assert f"at line {call}" in report[0].message, str(report)


def test_lint_puts_back_what_it_wrapped_in_jax():
    from jax._src import dtypes as jax_dtypes
    from jax._src.lax.control_flow import conditionals, loops

    before = (loops._check_carry_type, conditionals._check_branch_outputs, jax_dtypes.warnings)
    for case in ("while_body", "cond_branches"):
        assert wt.lint(getattr(refused, case), *REFUSED[case]).kinds() == ["carry-change"]
    assert wt.lint(planted.requested_f64, S((3,), f32)).kinds() == ["x64-truncation"]
    after = (loops._check_carry_type, conditionals._check_branch_outputs, jax_dtypes.warnings)
    assert after == before and jax_dtypes.warnings is warnings


def test_a_numpy_scalar_jax_folds_into_a_literal_is_still_found():
    # the conversion of a constant leaves no equation: jax folds it as it binds it
    # (select), or as it inlines the jit that holds it (operators, where, clip)
    calls = {
        "select": lambda x, c: jnp.select([x > 0], [c], x),
        "where": lambda x, c: jnp.where(x > 0, x, c),
        "clip": lambda x, c: jnp.clip(x, c, c + c),
        "multiply": lambda x, c: x * c,
    }
    for name, call in calls.items():
        for c in (np.int32(1), np.float32(1), np.int8(1)):
            report = wt.lint(lambda x, call=call, c=c: call(x, c), f32a)
            got = [f for f in report if f.kind == "implicit-promotion"]
            assert bool(got) == _promotes([f32a, c]), (name, c, str(report))
            assert all(f.file == __file__ for f in report), str(report)


def test_promotion_marks_are_read_only_with_the_run_that_made_them():
    from jax._src import config

    from weaktrace.lint import rules
    from weaktrace.lint.hooks import recording
    from weaktrace.lint.importer import import_jaxpr

    # a fresh trace context, as lint uses: jax's caches miss and jnp.hypot is traced
    fresh = config.hlo_source_file_canonicalization_regex("(?!)test-lint-gaps-marks")
    with fresh, recording(False) as first:
        closed = jax.make_jaxpr(_hypot)(i32, f32a)
    with recording(False) as second:
        jax.make_jaxpr(_hypot)(i32, f32a)
    program, meta = import_jaxpr(closed)
    assert first.token != second.token and meta.promotion
    assert set(rules._marks(meta, first).values()) <= set(first.promotions)
    assert rules._marks(meta, first) and not rules._marks(meta, second)
    assert [f.kind for f in rules.implicit_promotion(program, meta, first)] == [
        "implicit-promotion"
    ]


def test_a_jnp_function_handed_to_a_transformation_is_judged_by_all_its_operands():
    # the user's call is jax.tree.map / jax.vmap: its operands are the leaves it gets
    ints = {"w": S((3,), jnp.int32), "b": S((2,), jnp.int32)}
    floats = {"w": S((3,), f32), "b": S((2,), f32)}
    line = inspect.getsourcelines(_tree_add)[1] + 1
    report = wt.lint(_tree_add, ints, floats)
    assert _promotes([ints["w"], floats["w"]])
    assert [(f.kind, f.line) for f in report] == [("implicit-promotion", line)] * 2, str(report)
    assert not wt.lint(_tree_add, ints, ints)
    assert wt.lint(lambda a, b: jax.vmap(jnp.hypot)(a, b), i32, f32a).kinds() == [
        "implicit-promotion"
    ]
    assert not wt.lint(lambda a: jax.tree.map(jnp.deg2rad, a), ints)


def _tree_add(a, b):
    return jax.tree.map(jnp.add, a, b)
