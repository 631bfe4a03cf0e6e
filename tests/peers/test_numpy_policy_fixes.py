"""The numpy policy's fixes for NumPy semantics XLA does not give (integer division by
zero, complex truth and order, XLA's algebraic rewrites, full-width integer powers,
numpy's power fast paths, non-native byte order, scalar-type aliases, r_ of Python ints)
apply under policy("numpy") only: under the JAX policy every such program gives what
jax.jit of the jax.numpy function gives. Oracles: numpy and jax, called at test time.

The numpy side of each fix is swept by test_numpy_nep50.py (FIXED); this file checks the
other side (the JAX policy unchanged) over generated operands, and the upstream cases the
port has no generator for (np.r_, a constant 1 // 0 in this process).
"""

from __future__ import annotations

import functools
import math
import operator
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp

_INT_NAMES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
INTS = [np.dtype(n) for n in _INT_NAMES]
FLOATS = [np.dtype(n) for n in ("float32", "float64")]
COMPLEX = [np.dtype(n) for n in ("complex64", "complex128")]


def _int_values(dt: np.dtype) -> np.ndarray:
    info = np.iinfo(dt)
    vals = {int(info.min), int(info.max), -7, -1, 0, 1, 2, 3, 7, 64, 100}
    return np.array(sorted(v for v in vals if info.min <= v <= info.max), dt)


def _float_values(dt: np.dtype) -> np.ndarray:
    m = float(np.finfo(dt).max)
    return np.array([-math.inf, -m, -2.5, -0.0, 0.0, 0.5, 3.0, m, math.inf, math.nan], dt)


def _complex_values(dt: np.dtype) -> np.ndarray:
    n, i = math.nan, math.inf
    vals = [0j, 1j, -1j, 1 + 1j, 1 + 2j, 2 + 0j, complex(n, 0), complex(0, n), complex(i, 1)]
    return np.array(vals, dt)


def _outer(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return x[:, None], y[None, :]


def _same(ours: Any, theirs: Any) -> None:
    o, t = np.asarray(ours), np.asarray(theirs)
    assert o.dtype == t.dtype, (o.dtype, t.dtype)
    np.testing.assert_array_equal(o, t)  # NaNs in the same places, exact values


def _jax_pair(fn: Callable[..., Any], jfn: Callable[..., Any], x64: bool, *args: Any) -> None:
    """weaktrace under the JAX policy (traced and compiled) against jax.jit of jfn."""
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = jax.jit(jfn)(*args)
        ours = wt.trace(fn)(*args)
    _same(ours, theirs)


def _with_constant(op: Any, c: Any, a: Any) -> Any:
    return op(a, c)


# -- the JAX policy keeps jax's values --------------------------------------------------


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("dt", INTS, ids=str)
@pytest.mark.parametrize("op", ["floor_divide", "remainder", "divmod"])
def test_jax_policy_integer_division_by_zero_is_jaxs(op: str, dt: np.dtype, x64: bool) -> None:
    if dt.itemsize == 8 and not x64:
        pytest.skip("64-bit integers need x64 in jax")
    x, y = _outer(_int_values(dt), np.array([0, 1, -1, 3], dt) if dt.kind == "i" else
                  np.array([0, 1, 3], dt))  # fmt: skip
    _jax_pair(getattr(wnp, op), getattr(jnp, op), x64, x, y)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("dt", [d for d in INTS if d.kind == "i"], ids=str)
def test_jax_policy_integer_power_keeps_six_steps(dt: np.dtype, x64: bool) -> None:
    """jax.numpy's traced integer power looks at 6 bits of the exponent; so do we."""
    if dt.itemsize == 8 and not x64:
        pytest.skip("64-bit integers need x64 in jax")
    x, y = _outer(np.array([0, 1, 2, 3, -1], dt), np.array([0, 1, 5, 63, 64, 70, 100], dt))
    _jax_pair(wnp.power, jnp.power, x64, x, y)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_jax_policy_float_power_by_half_is_xlas_pow(dt: np.dtype, x64: bool) -> None:
    x = _float_values(dt)
    _jax_pair(lambda a, e: a**e, lambda a, e: a**e, x64, x, dt.type(0.5))
    _jax_pair(lambda a: a**0.5, lambda a: a**0.5, x64, x)


@pytest.mark.parametrize("x64", [False, True])
def test_jax_policy_bool_operator_square_is_jaxs(x64: bool) -> None:
    b = np.array([False, True])
    _jax_pair(lambda a: a**2, lambda a: a**2, x64, b)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("dt", FLOATS, ids=str)
@pytest.mark.parametrize("op", [operator.mul, operator.truediv, operator.floordiv])
def test_jax_policy_bool_and_float_is_xlas(op: Any, dt: np.dtype, x64: bool) -> None:
    """XLA's rewrites (convert(bool) * y as a select, x / y as x * (1 / y)) stay in the
    JAX policy's programs, as they are in jax's."""
    b = np.array([False, True])
    for y in (math.inf, -math.inf, math.nan, 0.0, -0.0, 2.0):
        c = dt.type(y)
        _jax_pair(op, op, x64, b, c)
        const = functools.partial(_with_constant, op, c)  # y as a constant in the program
        _jax_pair(const, const, x64, b)
    x = _float_values(dt)
    for y in (dt.type(np.finfo(dt).max), dt.type(-np.finfo(dt).max)):
        _jax_pair(op, op, x64, x, y)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("dt", COMPLEX, ids=str)
@pytest.mark.parametrize("op", ["maximum", "minimum", "logical_and", "logical_or", "logical_xor"])
def test_jax_policy_complex_order_and_truth_are_jaxs(op: str, dt: np.dtype, x64: bool) -> None:
    x, y = _outer(_complex_values(dt), _complex_values(dt))
    _jax_pair(getattr(wnp, op), getattr(jnp, op), x64, x, y)
    _jax_pair(getattr(wnp, op), getattr(jnp, op), x64, x, np.array([1, 0, 2], "int32"))


def test_jax_policy_clip_still_refuses_complex() -> None:
    x = np.array([1 + 1j, 2 + 0j])
    with pytest.raises(ValueError):
        jnp.clip(x, 1, 2)
    with pytest.raises(wt.WeaktraceError):
        wt.trace(lambda a: wnp.clip(a, 1, 2))(x)


# -- edges both policies share ----------------------------------------------------------


@pytest.mark.parametrize("pol", ["jax", "numpy"])
@pytest.mark.parametrize("spec", [">i2", ">u4", ">i8", ">f4", ">f8", ">c16", "<u2"])
def test_non_native_byte_order_arguments(pol: str, spec: str) -> None:
    """Arrays in either byte order are taken, as their native-order values (jax.jit
    itself refuses '>u4'; numpy computes with them)."""
    arr = np.arange(4).astype(spec)
    native = arr.astype(arr.dtype.newbyteorder("="))
    with jax.enable_x64(True):
        f = wt.trace(lambda a: a + 1, policy=pol)
        _same(f(arr), f(native))
        assert f.trace(arr).out_avals == f.trace(native).out_avals
        _same(wnp.add(arr, 1), wnp.add(native, 1))


@pytest.mark.parametrize("pol", ["jax", "numpy"])
@pytest.mark.parametrize("sctype", [np.longlong, np.ulonglong, np.intc, np.uintc, np.short])
def test_scalar_type_aliases_as_arguments(pol: str, sctype: Any) -> None:
    """numpy scalar types that are not their dtype's canonical class (np.ulonglong is
    not np.uint64) are taken as the canonical one."""
    canonical = np.dtype(np.dtype(sctype).name).type
    with jax.enable_x64(True):
        f = wt.trace(lambda a, b: a * b, policy=pol)
        _same(f(sctype(3), np.arange(3, dtype="int8")), f(canonical(3), np.arange(3, dtype="int8")))


# -- upstream cases the sweep has no generator for ----------------------------------------


@pytest.mark.parametrize("value", [255, 127, -129, 2**40, 5])
@pytest.mark.parametrize("dt", ["int8", "uint8", "int32"])
def test_r_casts_python_ints_as_numpy(value: int, dt: str) -> None:
    """upstream test_nep50_with_axisconcatenator: np.r_ casts scalar items to the
    result's dtype without promotion, so an int beyond it raises OverflowError."""
    arr = np.arange(5, dtype=dt)
    try:
        want, err = np.r_[arr, value], None
    except OverflowError as e:
        want, err = None, e
    f = wt.trace(lambda a: wnp.r_[a, value], policy="numpy")
    if err is not None:
        with pytest.raises(OverflowError):
            f(arr)
    else:
        _same(f(arr), want)


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_constant_integer_floor_divide_by_zero_in_process(dt: np.dtype) -> None:
    """wnp.floor_divide(c, 0) of two constants: XLA's constant folding would trap
    (SIGFPE) if the program divided by zero; numpy gives 0."""
    one, zero = dt.type(1), dt.type(0)
    with jax.enable_x64(True):
        out = wt.trace(lambda: (wnp.floor_divide(one, zero), wnp.remainder(one, zero)),
                       policy="numpy")()  # fmt: skip
    with np.errstate(all="ignore"):
        want = (np.floor_divide(one, zero), np.remainder(one, zero))
    for o, t in zip(out, want, strict=True):
        _same(o, t)


_OUTER_OPERANDS = [
    ("python-int", 1, "arr"), ("python-float", 1.0, "arr"), ("python-complex", 1j, "arr"),
    ("float64-scalar", np.float64(1), "arr"), ("0d-array", np.array(1.0), "arr"),
    ("arrays", np.arange(3, dtype="int16"), "arr"),
]  # fmt: skip


@pytest.mark.parametrize("pol", ["numpy", "jax"])
@pytest.mark.parametrize("name", ["add", "logical_and", "maximum"])
@pytest.mark.parametrize(
    ("what", "other", "_"), _OUTER_OPERANDS, ids=[o[0] for o in _OUTER_OPERANDS]
)
@pytest.mark.parametrize("flip", [False, True])
def test_ufunc_outer(pol: str, name: str, what: str, other: Any, _: str, flip: bool) -> None:
    """upstream test_nep50_in_ufunc_outer*: ``ufunc.outer`` keeps a Python scalar weak
    (numpy gh-32076: outer of a scalar is the call itself), numpy scalars and 0-d arrays
    strong. Oracles: numpy (np.<ufunc> for a Python scalar, whose outer the installed
    numpy may still make strong; np.<ufunc>.outer otherwise) and jax.numpy's outer."""
    arr = np.arange(6, dtype="float32").reshape(3, 2)
    args = (arr, other) if flip else (other, arr)
    with jax.enable_x64(True), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        ours = wt.trace(lambda: getattr(wnp, name).outer(*args), policy=pol)()
        if pol == "jax":
            theirs = getattr(jnp, name).outer(*args)
        elif isinstance(other, int | float | complex):
            theirs = getattr(np, name)(*args)
        else:
            theirs = getattr(np, name).outer(*args)
    assert np.shape(ours) == np.shape(theirs)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)
    assert np.asarray(ours).dtype == np.asarray(theirs).dtype


def test_ufunc_outer_huge_python_int_overflows() -> None:
    """upstream test_nep50_in_ufunc_outer_huge_integer: a weak Python int beyond int64
    raises OverflowError, as in the call (not an object array)."""
    with pytest.raises(OverflowError):
        np.add(2**100, 1)
    with pytest.raises(OverflowError):
        wt.trace(lambda: wnp.add.outer(2**100, 1), policy="numpy")()


# -- per-call checks of Python int arguments, one traced function across signatures --------

_CHECK_OPS: dict[str, Callable[..., Any]] = {
    "add": operator.add,
    "clip(x, n, None)": lambda xp, x, n: xp.clip(x, n, None),
    "clip(x, None, n)": lambda xp, x, n: xp.clip(x, None, n),
}


def _with(xp: Any, op: str) -> Callable[[Any, Any], Any]:
    fn = _CHECK_OPS[op]
    return fn if op == "add" else functools.partial(fn, xp)


@pytest.mark.parametrize("op", sorted(_CHECK_OPS))
def test_per_call_int_checks_follow_each_signature(op: str) -> None:
    """One traced function called with arrays of several integer dtypes and Python int
    arguments, in an interleaved order (jax.jit reuses its compiled programs): each call
    raises exactly where numpy raises, and gives numpy's value otherwise. The per-call
    checks were kept per argument structure only, so the last traced dtype's bounds
    served every dtype (int16 + 300 raised for int8's bounds; int8 + 300 then passed)."""
    f = wt.trace(lambda x, n: _with(wnp, op)(x, n), policy="numpy")
    calls = [(dt, n) for n in (3, 300, -129, 70000, -1, 2**40) for dt in INTS[:3] + INTS[4:6]]
    for dt, n in calls + calls[::-1]:
        x = np.array([1, 2], dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want, np_err = _with(np, op)(x, n), None
            except OverflowError as err:
                want, np_err = None, err
            try:
                got, err = np.asarray(f(x, n)), None
            except wt.WeaktraceError as e:
                got, err = None, e
        label = f"{op}: {dt}[2] and {n}"
        if np_err is not None:
            assert isinstance(err, OverflowError), f"{label}: numpy raises, weaktrace {got}"
            continue
        assert err is None, f"{label}: numpy gives {want}, weaktrace raised {err!r}"
        assert got.dtype == want.dtype and np.array_equal(got, want), f"{label}: {got} {want}"


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
def test_float_power_by_a_python_int_the_float_cannot_hold(dt: str) -> None:
    """NumPy converts a Python int exponent to the float array's dtype first: 2**64 - 1
    is 2**64 in float64, an even power, so (-2.0) ** (2**64 - 1) is inf, not -inf (the
    exact integer power weaktrace took). Found by the full python-scalar sweep."""
    x = np.array([-2.0, -1.0, 0.5, 2.0], dt)
    for e in (3, 2**11 + 1, 2**24 + 1, 2**53 + 1, 2**63 - 1, 2**64 - 1, -(2**63) + 1):
        with warnings.catch_warnings(), jax.enable_x64(True):
            warnings.simplefilter("ignore")
            want = np.power(x, e)
            got = np.asarray(wt.trace(lambda a, e=e: wnp.power(a, e), policy="numpy")(x))
        assert got.dtype == want.dtype, (dt, e, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=f"{dt} ** {e}")
