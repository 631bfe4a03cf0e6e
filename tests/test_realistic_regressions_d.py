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
