"""Focused regressions for bugs found by running session-12 realistic programs (written in
/tmp, not added to tests/realistic/) on weaktrace with their imports swapped.

The oracle is jax itself, computed at test time.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp_jax
import numpy as np
import pytest

import weaktrace as wt


def _agree(got, want, rtol=1e-5):
    g, w = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for a, b in zip(g, w, strict=True):
        a, b = (x if hasattr(x, "dtype") else jnp_jax.asarray(x) for x in (a, b))
        assert (a.shape, a.dtype, a.weak_type) == (b.shape, b.dtype, b.weak_type)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-6)


def _four_way(fn_of, args, x64):
    """fn_of(lax_module) run by jax (eager, jit) and weaktrace (eager, trace): the same
    result, or the same error class."""
    with jax.enable_x64(x64):
        try:
            want = jax.jit(fn_of(jax.lax))(*args)
        except Exception as e:  # the oracle's error is the expectation
            for run in (fn_of(wt.lax), wt.trace(fn_of(wt.lax))):
                with pytest.raises(type(e)):
                    run(*args)
            return
        _agree(fn_of(wt.lax)(*args), fn_of(jax.lax)(*args))
        _agree(wt.trace(fn_of(wt.lax))(*args), want)


# lax_plumbing: `lax.select_n(i % 3, x, -x, x * 0)` with i a Python int passed to the
# traced function is an int64 predicate under x64; weaktrace only took bool or int32
# (jax takes any integer), and it let a bool predicate pick from 3 cases (jax refuses).
@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("which", ["uint8", "int64", "bool", "float32", "weak"])
@pytest.mark.parametrize("n_cases", [2, 3])
def test_select_n_predicate_dtypes(which, n_cases, x64):
    x = np.arange(3.0, dtype=np.float32)
    w = 1 if which == "weak" else np.array([1, 0, 1]).astype(which)

    def fn_of(lax):
        return lambda w, x: lax.select_n(w, *[x * k for k in range(n_cases)])

    _four_way(fn_of, (w, x), x64)


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_select_with_an_integer_predicate(x64):
    def fn_of(lax):
        return lambda i, x: lax.select(i % 2, x, lax.neg(x))

    _four_way(fn_of, (3, np.arange(4.0, dtype=np.float32)), x64)


# gradient_tricks: jax.grad(..., allow_int=True) and jax.vjp of a function of an integer
# input give it a float0 cotangent; inside weaktrace.trace the transformation's outputs
# were all made traced values, and a float0 one raised InvalidInputError (jax.jit has
# none: the cotangent is a constant of no data). It is now a constant of the trace.
def _float0_program(np_mod):
    def run(v, k):
        g = jax.grad(lambda v, k: np_mod.sum(v * k), argnums=(0, 1), allow_int=True)(v, k)
        p = jax.grad(lambda p: np_mod.sum(p["w"] * p["n"]), allow_int=True)({"w": v, "n": k})
        out, pull = jax.vjp(lambda v, k: v * k, v, k)
        ct = pull(np_mod.ones_like(out))
        float0 = jax.dtypes.float0
        return g[0], g[1].shape, p["w"], p["n"].dtype == float0, ct[0], ct[1].dtype == float0

    return run


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_float0_cotangents_inside_a_trace(x64):
    args = (np.arange(3.0, dtype=np.float32), 3)
    with jax.enable_x64(x64):
        _agree(wt.trace(_float0_program(wt.numpy))(*args), jax.jit(_float0_program(jnp_jax))(*args))
        _agree(_float0_program(wt.numpy)(*args), _float0_program(jnp_jax)(*args))


# index_dtypes: lax.dynamic_slice(x, (u8[0], i16[0]), ...) with indices of two integer
# dtypes traced without complaint and failed only when jax compiled it; jax.jit refuses
# it as it traces (one integer dtype for all start indices). Same for
# dynamic_update_slice; a Python int next to a uint8 index is int32 (or int64): refused.
_STARTS = {
    "u8_i16": lambda jnp: (jnp.uint8(1), jnp.int16(0)),
    "py_u8": lambda jnp: (1, jnp.uint8(0)),
    "i32_u32": lambda jnp: (jnp.int32(1), jnp.uint32(0)),
    "u8_u8": lambda jnp: (jnp.uint8(1), jnp.uint8(0)),
    "py_py": lambda jnp: (1, 0),
}


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("starts", sorted(_STARTS))
def test_slice_start_indices_share_one_dtype(starts, x64):
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)

    def fn_of(lax, jnp):
        def f(x):
            s = _STARTS[starts](jnp)
            return lax.dynamic_slice(x, s, (2, 2)), lax.dynamic_update_slice(x, x[:1, :2], s)

        return f

    with jax.enable_x64(x64):
        try:
            want = jax.make_jaxpr(fn_of(jax.lax, jnp_jax), return_shape=True)(x)[1]
        except TypeError:
            with pytest.raises(TypeError, match="same type"):
                wt.trace(fn_of(wt.lax, wt.numpy)).trace(x)
            return
        got = wt.trace(fn_of(wt.lax, wt.numpy)).trace(x).out_avals
        assert [(a.shape, a.dtype) for a in got] == [(w.shape, w.dtype) for w in want]
        _agree(wt.trace(fn_of(wt.lax, wt.numpy))(x), jax.jit(fn_of(jax.lax, jnp_jax))(x))


# Probing lax calls with odd parameters (jax.make_jaxpr against weaktrace's .trace()):
# lax.argmax(x, 0, jnp.float32) traced to a float32 "index" where jax refuses a
# non-integer index_dtype as it traces.
@pytest.mark.parametrize("index_dtype", ["float32", "bool", "complex64", "uint8", "int16"])
def test_arg_reduce_index_dtype_must_be_an_integer(index_dtype):
    x = np.array([[1.0, 3.0, 2.0]], np.float32)
    fn_of = lambda lax: lambda x: (lax.argmax(x, 1, index_dtype), lax.argmin(x, 1, index_dtype))  # noqa: E731
    try:
        want = jax.jit(fn_of(jax.lax))(x)
    except TypeError:
        with pytest.raises(TypeError, match="integer"):
            wt.trace(fn_of(wt.lax)).trace(x)
        with pytest.raises(TypeError):
            fn_of(wt.lax)(x)
        return
    _agree(wt.trace(fn_of(wt.lax))(x), want)
    _agree(fn_of(wt.lax)(x), fn_of(jax.lax)(x))
