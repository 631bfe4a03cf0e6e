"""Regressions for the bugs issue 10 listed, each against the live library."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import weaktrace as wt
import weaktrace.numpy as wnp


def _avals(fn, *args, policy=None):
    out = wt.trace(fn, policy=policy).trace(*args).out_avals
    return (out.shape, out.dtype, out.weak_type)


def _jax_avals(fn, *args):
    out = jax.eval_shape(fn, *args)
    weak = jax.make_jaxpr(fn)(*args).out_avals[0].weak_type
    return (out.shape, out.dtype, weak)


@pytest.mark.parametrize("x64", [False, True])
def test_shape_dtype_struct_is_canonicalized_as_jax_does(x64):
    spec = jax.ShapeDtypeStruct((2,), "float64")
    with jax.enable_x64(x64):
        assert _avals(lambda a: a // a, spec) == _jax_avals(lambda a: a // a, spec)


def test_strict_two_weak_operands_of_one_dtype():
    spec = jax.ShapeDtypeStruct((2,), np.uint8, weak_type=True)
    with jax.numpy_dtype_promotion("strict"):
        assert _avals(lambda a: a + a, spec) == _jax_avals(lambda a: a + a, spec)


def test_arange_of_bools():
    with pytest.raises(TypeError):
        jnp.arange(False, True)
    with pytest.raises(TypeError):
        wt.trace(lambda: wnp.arange(False, True)).trace()
    for pol in ("numpy", "torch"):
        got = _avals(lambda: wnp.arange(False, True), policy=pol)[1]
        assert (
            got
            == np.arange(False, True).dtype
            == np.dtype(str(torch.arange(False, True).dtype).split(".")[1])
        )


@pytest.mark.parametrize("pol", ["numpy", "torch"])
def test_result_type_takes_numpy_scalar_types(pol):
    got = wt.result_type(np.float32, 0.0, policy=wt.policy(pol))
    assert got == np.result_type(np.float32, 0.0)


@pytest.mark.parametrize(
    ("base", "exp"),
    [(np.float16, np.int32), (np.bool_, np.bool_), (np.uint8, np.int64), (np.float32, np.int8)],
)
def test_numpy_power_promotes_as_numpy(base, exp):
    a, b = np.ones(2, base), np.ones(2, exp)
    assert _avals(lambda x, y: x**y, a, b, policy="numpy")[1] == (a**b).dtype


def test_numpy_power_with_literal_exponent():
    x = np.ones(2, np.bool_)
    assert _avals(lambda a: a**True, x, policy="numpy")[1] == (x**True).dtype
    with pytest.raises(OverflowError):
        np.ones(2, np.uint8) ** 1000
    with pytest.raises(OverflowError):
        wt.trace(lambda a: a**1000, policy="numpy").trace(np.ones(2, np.uint8))


def test_numpy_uint64_compared_with_negative_int():
    x = np.ones(2, np.uint64)
    got = wt.trace(lambda a: a < -1, policy="numpy")(x)
    np.testing.assert_array_equal(np.asarray(got), x < -1)


@pytest.mark.parametrize("pol", [None, "numpy"])
def test_array_with_dtype_checks_python_ints(pol):
    with pytest.raises(OverflowError):
        np.array([256], np.uint8)
    with pytest.raises(OverflowError):
        wt.trace(lambda: wnp.array([256], "uint8"), policy=pol).trace()
    if pol == "numpy":
        assert _avals(lambda: wnp.array([2**64 - 1], "uint64"), policy=pol)[1] == np.uint64


def test_torch_clip_joins_all_operands_at_once():
    a, lo, hi = np.ones(2, np.int32), np.array(1.0), np.ones(2, np.float32)
    want = torch.clamp(torch.from_numpy(a), torch.from_numpy(lo), torch.from_numpy(hi)).dtype
    got = _avals(lambda x, y, z: wnp.clip(x, y, z), a, lo, hi, policy="torch")[1]
    assert str(want).split(".")[1] == got.name


def test_explicit_x64_dtypes_allow():
    old = jax.config.jax_explicit_x64_dtypes
    jax.config.update("jax_explicit_x64_dtypes", "allow")
    try:
        with jax.enable_x64(False):
            x, t = jnp.int64(0), jnp.bool_(0)
            got = wt.trace(lambda: wnp.add(x, t)).trace().out_avals.dtype
            assert got == (x + t).dtype
    finally:
        jax.config.update("jax_explicit_x64_dtypes", str(old.name).lower())


@pytest.mark.parametrize("key", ["i, j", "i, :, j", "1, i, j", ":, i, j", "i, None, j", "..., i"])
def test_several_index_arrays_gather_like_jax(key):
    x = np.arange(60.0).reshape(3, 4, 5)
    i, j = np.array([0, 1, 2]), np.array([1, 2, 3])
    fn = eval(f"lambda x: x[{key}]", {"i": i, "j": j})
    np.testing.assert_array_equal(np.asarray(wt.trace(fn)(x)), np.asarray(jax.jit(fn)(x)))


@pytest.mark.parametrize("k", [3, 255, 256, -1])
def test_numpy_checks_python_int_arguments_at_call_time(k):
    x = np.ones(2, np.uint8)
    f = wt.trace(lambda a, b: a + b, policy="numpy")
    try:
        want = x + k
    except OverflowError:
        with pytest.raises(OverflowError):
            f(x, k)
        return
    np.testing.assert_array_equal(np.asarray(f(x, k)), want)


def test_numpy_two_python_scalars_give_a_strong_result():
    got = wt.trace(lambda a, b: a * b, policy="numpy").trace(-1.5, 0.0).out_avals
    assert (got.dtype, got.weak_type) == (np.multiply(-1.5, 0.0).dtype, False)


def test_numpy_where_wraps_and_ufuncs_raise_on_python_ints():
    x, c = np.ones(3, np.uint8), np.array([True, False, True])
    want = np.where(c, 65536, x)
    got = wt.trace(lambda cc, s, xx: wnp.where(cc, s, xx), policy="numpy")(c, 65536, x)
    np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(OverflowError):
        wt.trace(lambda xx: wnp.clip(xx, None, -1), policy="numpy").trace(np.ones(3, np.uint16))


@pytest.mark.parametrize(("a", "b"), [(bool, np.int8), (int, float), (np.float16, bool)])
def test_numpy_promote_types_reads_python_types_as_numpy_does(a, b):
    assert wt.promote_types(a, b, policy="numpy") == np.promote_types(a, b)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize(("base", "exp"), [("float16", "uint16"), ("bfloat16", "int8")])
def test_strict_weak_float_base_keeps_its_dtype_in_power(x64, base, exp):
    a = jax.ShapeDtypeStruct((), base, weak_type=True)
    b = jax.ShapeDtypeStruct((), exp, weak_type=True)
    with jax.enable_x64(x64), jax.numpy_dtype_promotion("strict"):
        assert _avals(lambda x, y: x**y, a, b) == _jax_avals(lambda x, y: x**y, a, b)


@pytest.mark.parametrize(("base", "exp"), [(0.0, 2**31), (1j, 1), (2.5, True)])
def test_numpy_power_of_two_python_scalars_is_strong(base, exp):
    got = wt.trace(lambda x, y: x**y, policy="numpy").trace(base, exp).out_avals
    want = np.power(base, exp)
    assert (got.dtype, got.weak_type) == (want.dtype, False)


@pytest.mark.parametrize(
    ("dt", "lo", "hi"),
    [("uint64", -129, None), ("int8", None, 300), ("int8", -300, None), ("int8", None, -300)],
)
def test_numpy_clip_drops_python_int_bounds_beyond_the_dtype(dt, lo, hi):
    x = np.arange(3).astype(dt)
    f = wt.trace(lambda a: wnp.clip(a, lo, hi), policy="numpy")
    try:
        want = np.clip(x, lo, hi)
    except OverflowError:
        with pytest.raises(OverflowError):
            f(x)
        return
    got = f(x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("k", [3, 256, -1])
@pytest.mark.parametrize("fn", ["full_like", "array"])
def test_numpy_python_int_arguments_converted_to_a_dtype_are_checked(fn, k):
    x = np.ones(2, np.uint8)
    ours = {
        "full_like": lambda a, s: wnp.full_like(a, s),
        "array": lambda a, s: wnp.array(s, a.dtype),
    }
    theirs = {
        "full_like": lambda a, s: np.full_like(a, s),
        "array": lambda a, s: np.array(s, a.dtype),
    }
    f = wt.trace(ours[fn], policy="numpy")
    try:
        want = theirs[fn](x, k)
    except OverflowError:
        with pytest.raises(OverflowError):
            f(x, k)
        return
    np.testing.assert_array_equal(np.asarray(f(x, k)), want)


_TORCH_ORDER = {"lt": torch.lt, "ge": torch.ge, "maximum": torch.maximum, "minimum": torch.minimum}
_WT_ORDER = {
    "lt": wnp.less,
    "ge": wnp.greater_equal,
    "maximum": wnp.maximum,
    "minimum": wnp.minimum,
}


@pytest.mark.parametrize("op", sorted(_TORCH_ORDER))
@pytest.mark.parametrize("other", [np.ones(2, np.int8), np.array(2.5), np.ones(2, np.complex64)])
def test_torch_refuses_to_order_complex_values(op, other):
    x = np.ones(2, np.complex64)
    with pytest.raises(RuntimeError):
        _TORCH_ORDER[op](torch.from_numpy(x), torch.from_numpy(other))
    with pytest.raises(wt.WeaktraceError):
        wt.trace(_WT_ORDER[op], policy="torch").trace(x, other)


@pytest.mark.parametrize("dt", ["int4", "uint2"])
def test_power_of_sub_byte_ints_by_a_traced_exponent_raises_a_value_error(dt):
    a = jax.ShapeDtypeStruct((2,), dt)
    with pytest.raises(ValueError):
        jax.eval_shape(lambda x, y: x**y, a, a)
    with pytest.raises(wt.OperandValueError):
        wt.trace(lambda x, y: x**y).trace(a, a)
