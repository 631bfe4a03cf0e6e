"""Gaps of weaktrace.numpy as a drop-in for jax.numpy (issue #13), found by jax's own tests
(v0.10.2) run with jax.numpy swapped for weaktrace.numpy (qdwh_test.py, random_test.py)
and by comparing every axis-taking function with jax. Expected answers come from jax,
computed at test time."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.numpy as wnp
import weaktrace.random as wr

X = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
X1 = np.ones((1, 3, 1), np.float32)


def _outcome(fn: Callable[[], Any]) -> Any:
    """("ok", shape, dtype, values) or ("err", the exception)."""
    try:
        out = fn()
    except Exception as err:  # compared with jax's
        return ("err", err)
    if isinstance(out, tuple | list):
        return ("ok", [(np.shape(o), np.asarray(o).dtype, np.asarray(o)) for o in out])
    return ("ok", [(np.shape(out), np.asarray(out).dtype, np.asarray(out))])


def _same_outcome(ref: Any, got: Any) -> None:
    if ref[0] == "err":
        assert got[0] == "err", f"jax raised {ref[1]!r}, weaktrace returned {got}"
        assert isinstance(got[1], type(ref[1])), f"jax {ref[1]!r}, weaktrace {got[1]!r}"
        return
    assert got[0] == "ok", f"jax returned, weaktrace raised {got[1]!r}"
    assert len(ref[1]) == len(got[1])
    for (rs, rd, rv), (gs, gd, gv) in zip(ref[1], got[1], strict=True):
        assert (rs, rd) == (gs, gd)
        np.testing.assert_array_equal(gv, rv)


# -- 1. axis arguments: any iterable of ints, as jax reads them -------------------------

AXES: dict[str, Callable[[], Any]] = {
    "range": lambda: range(2),
    "neg_range": lambda: range(-2, 0),
    "empty_range": lambda: range(0),
    "generator": lambda: (i for i in (0, 1)),
    "set": lambda: {0, 1},
    "dict_keys": lambda: {0: "a", 1: "b"},
    "np_array": lambda: np.array([0, 1]),
    "jax_array": lambda: jnp.array([0, 1]),
    "np_int": lambda: np.int64(1),
    "np_0d": lambda: np.array(1),
    "jax_0d": lambda: jnp.array(1),
    "list": lambda: [0, 1],
    "float": lambda: 1.0,
    "repeated": lambda: (1, 1),
    "out_of_bounds": lambda: (0, 5),
    "nested": lambda: ((0,), 1),
}

FUNCTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "sum": lambda m, a: m.sum(X, axis=a),
    "mean": lambda m, a: m.mean(X, axis=a),
    "std": lambda m, a: m.std(X, axis=a),
    "max": lambda m, a: m.max(X, axis=a),
    "all": lambda m, a: m.all(X, axis=a),
    "ptp": lambda m, a: m.ptp(X, axis=a),
    "average": lambda m, a: m.average(X, axis=a),
    "nansum": lambda m, a: m.nansum(X, axis=a),
    "nanvar": lambda m, a: m.nanvar(X, axis=a),
    "count_nonzero": lambda m, a: m.count_nonzero(X, axis=a),
    "median": lambda m, a: m.median(X, axis=a),
    "quantile": lambda m, a: m.quantile(X, 0.5, axis=a),
    "linalg.norm": lambda m, a: m.linalg.norm(X, axis=a),
    "linalg.vector_norm": lambda m, a: m.linalg.vector_norm(X, axis=a),
    "squeeze": lambda m, a: m.squeeze(X1, axis=a),
    "expand_dims": lambda m, a: m.expand_dims(X, a),
    "flip": lambda m, a: m.flip(X, a),
    "moveaxis": lambda m, a: m.moveaxis(X, a, (1, 0)),
    "roll": lambda m, a: m.roll(X, 1, a),
    "transpose": lambda m, a: m.transpose(X, a),
    "rot90": lambda m, a: m.rot90(X, 1, a),
    "cumsum": lambda m, a: m.cumsum(X, axis=a),
    "sort": lambda m, a: m.sort(X, axis=a),
    "diff": lambda m, a: m.diff(X, axis=a),
    "unstack": lambda m, a: m.unstack(X, axis=a),
    "apply_over_axes": lambda m, a: m.apply_over_axes(m.sum, X, a),
    "logsumexp": lambda m, a: (jax.nn if m is jnp else wt.nn).logsumexp(X, axis=a),
    "sum_method": lambda m, a: m.asarray(X).sum(axis=a),
    "transpose_method": lambda m, a: m.asarray(X).transpose(a),
}


# CI reads each function's axis in these forms; --run-slow in all of AXES
CI_FORMS = ("range", "generator", "np_array", "list", "np_0d", "out_of_bounds")


@pytest.mark.slow
@pytest.mark.parametrize("fn", list(FUNCTIONS))
def test_axis_arguments_as_jax_reads_them(fn: str, full: bool) -> None:
    # found by jax's qdwh_test.py swapped: jnp.expand_dims(x, range(...)) was refused
    # (weaktrace read only tuples and lists as axis sequences); the survey of every
    # axis-taking function found sum/mean/.../flip/moveaxis/roll refusing ranges, arrays
    # and generators too, and the nan-reductions, median/quantile, sort, cumsum, diff,
    # rot90 accepting the lists and arrays that jax (their axis is a jit static
    # argument there) refuses as unhashable.
    f = FUNCTIONS[fn]
    failures = []
    for form in AXES if full else CI_FORMS:
        # jax reads a generator twice in some functions (nanvar: its jit's static
        # argument, then the reduction), so its second reading is empty: the reference
        # is what jax does with the generator's values
        make = AXES[form]
        ref_axis = (lambda make=make: tuple(make())) if form == "generator" else make
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = _outcome(lambda: f(jnp, ref_axis()))  # noqa: B023
            got = _outcome(lambda: f(wnp, make()))  # noqa: B023
        try:
            _same_outcome(ref, got)
        except AssertionError as err:
            failures.append(f"{fn} axis={form}: {err}")
    assert not failures, "\n".join(failures)


def test_expand_dims_of_a_range_traced() -> None:
    # qdwh's own call: jnp.expand_dims(x, range(...)) inside jax.jit
    def f(m: Any, x: Any) -> Any:
        return m.expand_dims(x, range(1, 3))

    ref = jax.jit(lambda x: f(jnp, x))(X)
    got = wt.trace(lambda x: f(wnp, x))(X)
    assert got.shape == ref.shape and got.dtype == ref.dtype


def test_traced_axis_is_a_concretization_error() -> None:
    def f(m: Any, x: Any, a: Any) -> Any:
        return m.sum(x, axis=a)

    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x, a: f(jnp, x, a))(X, 1)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        wt.trace(lambda x, a: f(wnp, x, a))(X, 1)


# -- 2. key dtypes as dtype= ----------------------------------------------------------

KEY = jax.random.key(0)
KEYS = jax.random.split(jax.random.key(1), 3)
RAW = jax.random.PRNGKey(0)
KD = KEY.dtype

KEY_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "array": lambda m, lax: m.array(KEY, dtype=KD),
    "asarray": lambda m, lax: m.asarray(KEYS, dtype=KD),
    "asarray_raw": lambda m, lax: m.asarray(RAW, dtype=KD),
    "array_list": lambda m, lax: m.array([KEY, KEY], dtype=KD),
    "array_list_no_dtype": lambda m, lax: m.array([KEY, KEY]),
    "empty": lambda m, lax: m.empty(3, dtype=KD),
    "zeros": lambda m, lax: m.zeros(3, dtype=KD),
    "zeros_like_dtype": lambda m, lax: m.zeros_like(KEYS, dtype=KD),
    "ones_like_dtype": lambda m, lax: m.ones_like(KEYS, dtype=KD),
    "empty_like_dtype": lambda m, lax: m.empty_like(KEYS, dtype=KD),
    "full_like_dtype": lambda m, lax: m.full_like(KEYS, KEY, dtype=KD),
    "zeros_like": lambda m, lax: m.zeros_like(KEYS),
    "convert_element_type": lambda m, lax: lax.convert_element_type(KEY, KD),
    "convert_element_type_raw": lambda m, lax: lax.convert_element_type(RAW, KD),
    "convert_to_uint32": lambda m, lax: lax.convert_element_type(KEY, np.uint32),
    "astype_method": lambda m, lax: m.asarray(KEYS).astype(KD),
    "jnp_astype": lambda m, lax: m.astype(KEYS, KD),
    "prng_key_class": lambda m, lax: m.array(KEY, dtype=jax.dtypes.prng_key),
}


def _key_outcome(fn: Callable[[], Any]) -> Any:
    try:
        out = fn()
    except Exception as err:  # compared with jax's
        return ("err", err)
    data = jax.random.key_data(out) if jnp.issubdtype(out.dtype, jax.dtypes.prng_key) else out
    return ("ok", [(out.shape, out.dtype, np.asarray(data))])


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("call", list(KEY_CALLS))
def test_key_dtype_arguments(call: str, traced: bool) -> None:
    # found by jax's random_test.py swapped (JnpWithKeyArrayTest): dtype=keys.dtype was
    # refused by array/asarray/empty/convert_element_type ("cannot interpret key<fry>");
    # jax makes or keeps key arrays there, and refuses a key dtype in the *_like functions
    f = KEY_CALLS[call]
    if traced:
        ref = _key_outcome(lambda: jax.jit(lambda: f(jnp, jax.lax))())
        got = _key_outcome(lambda: wt.trace(lambda: f(wnp, wlax))())
    else:
        ref = _key_outcome(lambda: f(jnp, jax.lax))
        got = _key_outcome(lambda: f(wnp, wlax))
    if ref[0] == "err" and call == "prng_key_class":
        assert got[0] == "err" and isinstance(got[1], TypeError)
        return
    _same_outcome(ref, got)


LEGACY: dict[str, Callable[[Any], Any]] = {
    "split": lambda r: r.split(RAW),
    "normal": lambda r: r.normal(RAW, (2,)),
    "fold_in": lambda r: r.fold_in(RAW, 1),
    "key_data": lambda r: r.key_data(RAW),
    "key_impl": lambda r: r.key_impl(RAW),
    "split_numpy_key": lambda r: r.split(np.asarray(RAW)),
    "split_typed": lambda r: r.split(KEY),
}


def _legacy_outcome(fn: Callable[[], Any], mode: str) -> tuple[str, int]:
    """("ok", number of legacy-key warnings) or ("err", error class name) under
    ``jax_legacy_prng_key=mode``: each call is made three times (jax checks every call)."""
    jax.config.update("jax_legacy_prng_key", mode)
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            for _ in range(3):
                fn()
    except ValueError as err:
        return ("err", type(err).__mro__[-3].__name__)  # ValueError
    finally:
        jax.config.update("jax_legacy_prng_key", "allow")
    return ("ok", sum("Legacy uint32 key" in str(w.message) for w in seen))


@pytest.mark.parametrize("mode", ["warn", "error"])
@pytest.mark.parametrize("call", list(LEGACY))
def test_legacy_prng_key_config(call: str, mode: str) -> None:
    # weaktrace.random compiled eager calls once per key dtype: jax_legacy_prng_key's
    # check (a warning per call, or ValueError) ran at the first compilation only, so
    # after one call in 'warn' (or 'allow') mode, 'error' raised nothing
    f = LEGACY[call]
    f(wr)  # compiled under 'allow' first
    assert _legacy_outcome(lambda: f(wr), mode) == _legacy_outcome(lambda: f(jax.random), mode)


# -- 3. asarray / array hand back an unchanged array ----------------------------------

STRONG = jnp.arange(3.0)
WEAK = jnp.asarray(2.0)
INTS = jnp.arange(3)

COPY_CALLS: dict[str, Callable[[Any], Any]] = {
    "asarray": lambda m: m.asarray(STRONG),
    "asarray_own_dtype": lambda m: m.asarray(STRONG, dtype=STRONG.dtype),
    "asarray_dtype_name": lambda m: m.asarray(STRONG, dtype="float32"),
    "asarray_dtype_char": lambda m: m.asarray(STRONG, dtype="f"),
    "asarray_python_float": lambda m: m.asarray(STRONG, dtype=float),
    "asarray_int_own_dtype": lambda m: m.asarray(INTS, dtype=INTS.dtype),
    "asarray_copy_false": lambda m: m.asarray(STRONG, dtype=STRONG.dtype, copy=False),
    "asarray_copy_true": lambda m: m.asarray(STRONG, dtype=STRONG.dtype, copy=True),
    "asarray_other_dtype": lambda m: m.asarray(STRONG, dtype=np.int32, copy=False),
    "asarray_weak": lambda m: m.asarray(WEAK),
    "asarray_weak_copy_false": lambda m: m.asarray(WEAK, copy=False),
    "asarray_weak_own_dtype": lambda m: m.asarray(WEAK, dtype=WEAK.dtype),
    "asarray_device": lambda m: m.asarray(STRONG, device=jax.devices()[0]),
    "asarray_order_c": lambda m: m.asarray(STRONG, order="C"),
    "asarray_order_k": lambda m: m.asarray(STRONG, order="K"),
    "asarray_key": lambda m: m.asarray(KEY, dtype=KD),
    "array": lambda m: m.array(STRONG),
    "array_copy_false": lambda m: m.array(STRONG, copy=False),
    "array_own_dtype_copy_false": lambda m: m.array(STRONG, dtype=STRONG.dtype, copy=False),
    "array_own_dtype_copy_none": lambda m: m.array(STRONG, dtype=STRONG.dtype, copy=None),
    "array_ndmin_1": lambda m: m.array(STRONG, ndmin=1, copy=False),
    "array_ndmin_2": lambda m: m.array(STRONG, ndmin=2, copy=False),
    "array_weak_copy_false": lambda m: m.array(WEAK, copy=False),
    "array_order_f": lambda m: m.array(STRONG, order="F", copy=False),
}


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("call", list(COPY_CALLS))
def test_asarray_returns_the_array_itself_as_jax(call: str, x64: bool) -> None:
    # jnp.asarray(x, dtype=x.dtype) is x in jax (its convert_element_type to the same
    # dtype and weak flag is the operand); weaktrace returned a copy whenever a dtype
    # was given, and a weak array was never handed back
    f = COPY_CALLS[call]
    with jax.enable_x64(x64):

        def outcome(m: Any) -> Any:
            try:
                out = f(m)
            except Exception as err:  # compared with jax's
                return ("err", type(err))
            same = any(out is v for v in (STRONG, WEAK, INTS, KEY))
            return ("ok", same, out.dtype, getattr(out, "weak_type", False), out.shape)

        ref, got = outcome(jnp), outcome(wnp)
    if ref[0] == "err":
        assert got[0] == "err" and issubclass(got[1], ref[1]), (ref, got)
    else:
        assert got == ref


def test_asarray_is_one_function() -> None:
    import weaktrace.numpy.creation as creation

    assert wnp.asarray is creation.asarray
    assert not hasattr(creation, "_mirror_asarray")
    assert not hasattr(creation, "_mirror_array")


# -- 4. functions of Python callables: traced again only when jax does ------------------


def _traces_of_piecewise(m: Any) -> int:
    """How often the functions of three equal eager piecewise calls run."""
    calls = []

    def double(v: Any) -> Any:
        calls.append(1)
        return v * 2

    def negate(v: Any) -> Any:
        calls.append(1)
        return -v

    x = jnp.linspace(-1.0, 1.0, 8)
    outs = [m.piecewise(x, [x < 0, x >= 0], [double, negate]) for _ in range(3)]
    np.testing.assert_array_equal(outs[0], outs[2])
    return len(calls)


def test_piecewise_eager_calls_are_compiled_once() -> None:
    # jnp.piecewise is jitted with its functions static: called again with the same
    # functions and avals, jax does not run them again. weaktrace's compiled eager path
    # could not take the functions (a list of callables is no jax type), so every call
    # ran uncompiled, tracing the functions again (and took ~150 ms, jax 0.3 ms)
    assert _traces_of_piecewise(wnp) == _traces_of_piecewise(jnp)
