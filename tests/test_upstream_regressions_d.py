"""Bugs found by running jax's own tests/lax_test.py (jax v0.10.2) with ``jax.lax`` and
``jax.numpy`` swapped for the weaktrace mirrors. Each is checked against jax computed at
test time, eagerly and through ``weaktrace.trace`` (against ``jax.jit``)."""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest
from jax import lax

import weaktrace as wt
import weaktrace.lax as wl


def _same(got: object, want: object) -> None:
    """Same values, dtypes and weak flags, leaf by leaf."""
    gl, wl_ = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(gl) == len(wl_)
    for g, w in zip(gl, wl_, strict=True):
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert g.aval.weak_type == w.aval.weak_type, (g.aval, w.aval)
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def _both(wfun, jfun, *args) -> None:  # type: ignore[no-untyped-def]
    """Eager weaktrace against eager jax, and weaktrace.trace against jax.jit."""
    _same(wfun(*args), jfun(*args))
    _same(wt.trace(wfun)(*args), jax.jit(jfun)(*args))


# -- top_k(axis=) ------------------------------------------------------------------
# testTopK passes axis=0; weaktrace's top_k had no axis keyword (TypeError).


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_top_k_axis(axis: int) -> None:
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
    _both(lambda v: wl.top_k(v, 2, axis=axis), lambda v: lax.top_k(v, 2, axis=axis), x)


@pytest.mark.parametrize("axis,k", [(3, 1), (-4, 1), (0, 4)])
def test_top_k_axis_errors(axis: int, k: int) -> None:
    x = np.zeros((3, 4, 5), np.float32)
    with pytest.raises(ValueError) as want:
        lax.top_k(x, k, axis=axis)
    with pytest.raises(type(want.value)):
        wl.top_k(x, k, axis=axis)


# -- mul(out_dtype=) -----------------------------------------------------------------
# testOpOutDtype: weaktrace's mul had no out_dtype keyword (TypeError). jax converts both
# operands to out_dtype and multiplies there (int8 100 * 100 -> int32 10000).

MUL_CASES = [
    (np.int8(100), np.int8(100), np.int32),
    (np.float16(300), np.float16(300), np.float32),
    (np.float32(1.5), np.float32(2.5), np.int32),
    (2.0, 3.0, np.float32),
    (np.int8(2), 3, np.int32),
    (np.ones(3, np.complex64), np.ones(3, np.complex64), np.complex64),
]


@pytest.mark.parametrize("a,b,dt", MUL_CASES)
def test_mul_out_dtype(a: object, b: object, dt: object) -> None:
    _both(lambda x, y: wl.mul(x, y, out_dtype=dt), lambda x, y: lax.mul(x, y, out_dtype=dt), a, b)


# -- conj of a real operand ---------------------------------------------------------------
# testOp/testOpAgainstNumpy/testUnaryWeakTypes_conj: lax.conj takes float32 (and float64)
# and gives complex; weaktrace refused every real dtype (OperandTypeError).


REALS = [np.float32(1.5), np.ones(3, np.float32), 2.0, np.ones(2, np.complex64)]


@pytest.mark.parametrize("x", REALS)
def test_conj_of_real(x: object) -> None:
    _both(wl.conj, lax.conj, x)


@pytest.mark.parametrize("dt", [np.float16, np.int32, jax.numpy.bfloat16])
def test_conj_refuses_what_jax_refuses(dt: object) -> None:
    x = np.ones(2, dt)
    with pytest.raises(TypeError, match="conj does not accept dtype"):
        lax.conj(x)
    with pytest.raises(TypeError, match="conj does not accept dtype"):
        wl.conj(x)


# -- jax's words for mismatched operand dtypes -------------------------------------------
# test_ops_error_on_mismatched_dtypes matches "requires arguments to have the same dtypes".


@pytest.mark.parametrize("name", ["add", "mul", "div", "rem", "lt", "eq"])
def test_mismatched_dtypes_message(name: str) -> None:
    pattern = "requires arguments to have the same dtypes"
    with pytest.raises(TypeError, match=pattern):
        getattr(lax, name)(0, 0.0)
    with pytest.raises(TypeError, match=pattern):
        getattr(wl, name)(0, 0.0)


# -- reduce with jax's own monoid function and a traced init ------------------------------
# testReduce passes jax's lax.add etc. as the computation with init_val an argument of
# jax.jit: weaktrace traced jax's lax.add on its own tracers (ValueError __jax_array__).


@pytest.mark.parametrize("name", ["add", "mul", "max", "min"])
def test_reduce_with_jax_monoid_and_traced_init(name: str) -> None:
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    op = getattr(lax, name)
    want = jax.jit(lambda a, i: lax.reduce(a, i, op, (1,)))(x, np.float32(1))
    got = jax.jit(lambda a, i: wl.reduce(a, i, op, (1,)))(x, np.float32(1))
    _same(got, want)


# -- eager reductions keep a weak operand's flag ----------------------------------------------
# testReduceWeakType: an eager reduce_prod/sum/max of a weak array came back strong (the
# lowering went through lax.reduce with a strong numpy identity), while its trace said weak.


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min"])
def test_eager_reduction_keeps_weak_flag(name: str) -> None:
    x = np.arange(1, 5, dtype=np.float32)
    weak = jax.lax.broadcast(jax.numpy.asarray(1.5), (4,))  # ~float32[4]
    assert weak.aval.weak_type, "the test needs a weak array"
    for v in (x, weak):
        _both(lambda a: getattr(wl, name)(a, (0,)), lambda a: getattr(lax, name)(a, (0,)), v)


@pytest.mark.parametrize("init_weak", [False, True])
def test_reduce_mul_identity_weak_flag(init_weak: bool) -> None:
    weak = jax.lax.broadcast(jax.numpy.asarray(3), (5,))  # ~int32[5]
    init = jax.numpy.asarray(1) if init_weak else np.int32(1)

    def f(mod):  # type: ignore[no-untyped-def]
        return lambda a, i: mod.reduce(a, i, mod.mul, (0,))

    _same(f(wl)(weak, init), f(lax)(weak, init))


# -- repeat eager calls with a computation do not recompile ----------------------------------
# testReduceWindowVariadic / testReduceWindowGeneralJVP / testScatterApply: every eager call
# traced the computation into a fresh program and handed jax a fresh closure, so jax
# retraced and recompiled on each call ("Compilation detected during second call").

_COMPILES: list[str] = []


def _on_event(event: str, *_: object, **__: object) -> None:
    if "backend_compile" in event:
        _COMPILES.append(event)


jax.monitoring.register_event_duration_secs_listener(_on_event)


def _second_call_compiles(fun, *args) -> int:  # type: ignore[no-untyped-def]
    fun(*args)
    before = len(_COMPILES)
    fun(*args)
    return len(_COMPILES) - before


def _variadic(mod):  # type: ignore[no-untyped-def]
    def reducer(xs, ys):  # type: ignore[no-untyped-def]
        return (xs[0] + ys[0], mod.max(xs[1], ys[1]))

    inits = (np.float32(0), np.float32(-np.inf))
    return lambda a, b: mod.reduce_window((a, b), inits, reducer, (2, 2), (1, 1), "VALID")


def _apply(mod):  # type: ignore[no-untyped-def]
    dn = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    return lambda a, i: mod.scatter_apply(a, i, mod.sin, dn, update_shape=(2,))


def test_eager_reduce_window_and_scatter_apply_compile_once() -> None:
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    assert _second_call_compiles(_variadic(lax), x, x) == 0, "jax itself recompiles"
    assert _second_call_compiles(_variadic(wl), x, x) == 0
    v, idx = np.arange(5, dtype=np.float32), np.array([[1], [3]], np.int32)
    assert _second_call_compiles(_apply(lax), v, idx) == 0, "jax itself recompiles"
    assert _second_call_compiles(_apply(wl), v, idx) == 0
    _same(_apply(wl)(v, idx), _apply(lax)(v, idx))
    _same(_variadic(wl)(x, x), _variadic(lax)(x, x))


# -- axes jax does not wrap -------------------------------------------------------------------
# testSqueezeShapeCheck / testArgMinMaxInvalidAxisError: weaktrace wrapped every axis modulo
# the rank, so squeeze(x, (3,)) of a (1, 2, 3) array squeezed axis 0 and argmin(axis=-1)
# ran, silently, where jax raises. Also expand_dims (same wrapping) and jax's words for
# squeeze and broadcast_in_dim (testBroadcastInDimShapeCheck).

X123 = np.ones((1, 2, 3), np.float32)
SHAPE_CALLS = {
    "squeeze_3": lambda m: m.squeeze(X123, (3,)),
    "squeeze_-4": lambda m: m.squeeze(X123, (-4,)),
    "squeeze_-3": lambda m: m.squeeze(X123, (-3,)),
    "squeeze_dup": lambda m: m.squeeze(X123, (0, -3)),
    "squeeze_size2": lambda m: m.squeeze(X123, (1,)),
    "squeeze_none": lambda m: m.squeeze(X123, (None,)),
    "expand_4": lambda m: m.expand_dims(X123, (4,)),
    "expand_-5": lambda m: m.expand_dims(X123, (-5,)),
    "expand_-4": lambda m: m.expand_dims(X123, (-4,)),
    "expand_dup": lambda m: m.expand_dims(X123, (0, 0)),
    "argmin_-1": lambda m: m.argmin(X123, -1, np.int32),
    "argmax_3": lambda m: m.argmax(X123, 3, np.int32),
    "argmax_2": lambda m: m.argmax(X123, 2, np.int32),
    "bid_len": lambda m: m.broadcast_in_dim(np.ones(2), (2, 2), (0, 1)),
    "bid_rank": lambda m: m.broadcast_in_dim(np.ones((2, 2)), (2,), (0, 1)),
    "bid_subset": lambda m: m.broadcast_in_dim(np.ones(2), (2, 3), (2,)),
    "bid_size": lambda m: m.broadcast_in_dim(np.ones(2), (3,), (0,)),
    "bid_dup": lambda m: m.broadcast_in_dim(np.ones((2, 2)), (2, 2), (0, 0)),
    "bid_unsorted": lambda m: m.broadcast_in_dim(np.ones((2, 3)), (3, 2), (1, 0)),
}


@pytest.mark.parametrize("name", sorted(SHAPE_CALLS))
def test_shape_checks_as_jax(name: str) -> None:
    call = SHAPE_CALLS[name]
    try:
        want = call(lax)
    except (TypeError, ValueError) as err:
        with pytest.raises(type(err)) as got:
            call(wl)
        # jax's words, up to its own prefix (what jax's tests match on)
        assert str(err).split(":")[0].split(";")[0] in str(got.value)
        return
    _same(call(wl), want)


# -- reduce / reduce_window argument checks ------------------------------------------------
# test_reduction_with_repeated_axes_error, test_reduce_with_nonscalar_inits_errors,
# test_reduce_window_scalar_init_value_shape_rule: jax's words (and reduce_window's
# parameter names: jax's test passes `operand=` by keyword, a TypeError here before).

ONES44 = np.ones((4, 4), np.int32)
REDUCE_CALLS = {
    "dup_axes": lambda m: m.reduce(np.arange(3), 0, m.add, (0, 0)),
    "nonscalar_init": lambda m: m.reduce(np.ones(5), np.ones(5), lambda a, b: a + b, (0,)),
    "window_nonscalar": lambda m: m.reduce_window(
        operand=ONES44, init_value=np.zeros((1,), np.int32), computation=m.max,
        window_dimensions=(2, 2), window_strides=(2, 2), padding="VALID"),
    "window_keywords": lambda m: m.reduce_window(
        operand=ONES44, init_value=np.int32(0), computation=m.add,
        window_dimensions=(2, 2), window_strides=(2, 2), padding="VALID"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(REDUCE_CALLS))
def test_reduce_checks_as_jax(name: str) -> None:
    call = REDUCE_CALLS[name]
    try:
        want = call(lax)
    except (TypeError, ValueError) as err:
        with pytest.raises(type(err), match=re.escape(str(err).split(":")[0])):
            call(wl)
        return
    _same(call(wl), want)


# -- convert_element_type of an out-of-range Python int ------------------------------------
# testConvertElementTypeOOB: jax converts a Python int through numpy (2**32 -> int32 0);
# weaktrace refused it as an out-of-range weak int (ArgumentOverflowError).


@pytest.mark.parametrize(
    "v,dt", [(2**32, "int32"), (2**32 + 5, "float32"), (2**32 + 5, "uint8"), (2**63, "int32"),
             (-(2**40) - 3, "int16"), (5, "int32")]
)  # fmt: skip
def test_convert_element_type_python_int_out_of_range(v: int, dt: str) -> None:
    _both(lambda: wl.convert_element_type(v, dt), lambda: lax.convert_element_type(v, dt))


# -- lax.dot's keyword-only options and dimension_numbers ----------------------------------
# testDotPositionalArgumentDeprecation: jax's dot takes its options by keyword only (a
# positional precision is a TypeError) and accepts dimension_numbers=; weaktrace took
# precision positionally and had no dimension_numbers.

V5, M234 = np.arange(5.0, dtype=np.float32), np.ones((2, 3, 4), np.float32)
DOT_CALLS = {
    "vv": lambda m: m.dot(V5, V5),
    "mv_precision": lambda m: m.dot(np.ones((2, 5), np.float32), V5, precision=m.Precision.HIGHEST),
    "dimension_numbers": lambda m: m.dot(
        M234, M234, dimension_numbers=(((2,), (2,)), ((0,), (0,)))
    ),
    "positional_precision": lambda m: m.dot(V5, V5, m.Precision.DEFAULT),
    "batched_without_dn": lambda m: m.dot(M234, V5),
}


@pytest.mark.parametrize("name", sorted(DOT_CALLS))
def test_dot_signature_as_jax(name: str) -> None:
    call = DOT_CALLS[name]
    try:
        want = call(lax)
    except (TypeError, ValueError) as err:
        with pytest.raises(type(err), match=re.escape(str(err)[:40])):
            call(wl)
        return
    _same(call(wl), want)
