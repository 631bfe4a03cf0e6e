"""custom_root and custom_linear_solve with ``has_aux=True`` (issue #12) against
jax.lax, computed at test time: output pytrees, shapes, dtypes and weak flags (as
jax.make_jaxpr), values (as jax.jit, eager as jax eager), jax.grad where jax's works
and the same kind of error where it does not, and jax's has_aux errors.

The aux outputs are generated: an array, a weak Python scalar, an integer, a pytree,
None, computed from the solution or from a closed-over value."""

# ruff: noqa: B023  (every lambda made in a loop is called within that iteration)
from __future__ import annotations

import itertools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import weaktrace as wt
import weaktrace.lax as wlax
from tests.mirror_harness import check

X64 = [False, True]
AUX = {  # name -> aux(module, solution, residual, closed-over value)
    "residual": lambda m, x, r, c: r,
    "py float": lambda m, x, r, c: 2.5,
    "py int": lambda m, x, r, c: 3,
    "int32": lambda m, x, r, c: np.int32(7),
    "tree": lambda m, x, r, c: {"res": r, "n": (x * 0 + 25, [c])},
    "none": lambda m, x, r, c: None,
    "closure": lambda m, x, r, c: c * 2,
}
SPD3 = np.array([[4.0, 1, 0], [1, 3, 0.5], [0, 0.5, 2]])


def root(m, y, aux):
    """Newton's method for x * x = y; solve returns (solution, aux)."""

    def solve(f, x0):
        x = m.fori_loop(0, 25, lambda i, x: x - f(x) / (2 * x), x0)
        return x, AUX[aux](m, x, f(x), y)

    return m.custom_root(
        lambda x: x * x - y, y * 0 + 1, solve, lambda g, r: r / g(y * 0 + 1), has_aux=True
    )


def linsolve(m, a, b, aux, mode):
    """Richardson iteration; mode: "transpose" (transpose_solve given), "symmetric"
    (symmetric=True, no transpose_solve) or "forward" (no transpose_solve)."""

    def solve(mv, r):
        x = m.fori_loop(0, 60, lambda i, x: x + 0.2 * (r - mv(x)), r * 0)
        return x, AUX[aux](m, x, r - mv(x), a[0, 0])

    tr = solve if mode == "transpose" else None
    return m.custom_linear_solve(
        lambda x: m.dot(a, x), b, solve, tr, symmetric=mode == "symmetric", has_aux=True
    )


def both(fn, *args, **kw):
    check(lambda *a: fn(wlax, *a), lambda *a: fn(lax, *a), *args, **kw)


def _grad_both(fn, args, argnum, what):
    """jax.grad of the solution through the compiled weaktrace function and through
    jax's: equal values and dtypes, or the same kind of error."""
    traced = wt.trace(lambda *a: fn(wlax, *a))

    def loss(call):
        return lambda *a: jnp.sum(jnp.sin(call(*a)[0]))

    try:
        want = jax.grad(loss(lambda *a: fn(lax, *a)), argnums=argnum)(*args)
    except Exception as e:  # jax's error kind is the oracle
        with pytest.raises(type(e)):
            jax.grad(loss(traced), argnums=argnum)(*args)
        return
    got = jax.grad(loss(traced), argnums=argnum)(*args)
    assert got.dtype == want.dtype, what
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5, err_msg=what)


def _dtypes(x64):
    return ["float32", "float64"] if x64 else ["float32"]


def sample(cases: list, k: int, full: bool, seed: str) -> list:
    """Every case with --run-slow; else a deterministic sample of k."""
    cases = list(cases)
    return cases if full or len(cases) <= k else random.Random(seed).sample(cases, k)


@pytest.mark.parametrize("x64", X64)
def test_custom_root_has_aux_matches_jax(full, x64):
    with jax.enable_x64(x64):
        cases = itertools.product(sorted(AUX), _dtypes(x64), [(), (3,)])
        for aux, dt, shape in sample(cases, 3, full, f"root {x64}"):
            y = np.full(shape, 2.0, dt) + np.arange(np.prod(shape, dtype=int)).reshape(shape)
            what = f"root aux={aux} {dt} {shape}"
            both(lambda m, a: root(m, a, aux), y, rtol=1e-4, atol=1e-5, context=what)
            _grad_both(lambda m, a: root(m, a, aux), [y], 0, what)


@pytest.mark.parametrize("mode", ["transpose", "symmetric", "forward"])
@pytest.mark.parametrize("x64", X64)
def test_custom_linear_solve_has_aux_matches_jax(full, mode, x64):
    with jax.enable_x64(x64):
        cases = itertools.product(_dtypes(x64), sorted(AUX))
        for dt, aux in sample(cases, 1, full, f"linear {mode} {x64}"):
            a, b = SPD3.astype(dt), np.array([1.0, -2.0, 0.5], dt)
            what = f"linear aux={aux} {mode} {dt}"
            fn = lambda m, x, y: linsolve(m, x, y, aux, mode)  # noqa: E731
            both(fn, a, b, rtol=1e-4, atol=1e-5, context=what)
            for argnum in (0, 1):
                _grad_both(fn, [a, b], argnum, f"{what} d/d{argnum}")


def test_weak_rhs_keeps_its_weak_flag_and_aux_its_own():
    """b weak (a Python scalar broadcast): the solution is b's type, the aux solve's."""

    def fn(m, a):
        b = m.broadcast_in_dim(1.5, (3,), ())
        return m.custom_linear_solve(
            lambda x: m.dot(a, x), b, lambda mv, r: (r / 4, (r, np.int8(1))), has_aux=True
        )

    both(fn, SPD3.astype(np.float32), values=False, context="weak b")


BAD = {  # name -> fn(module, a): has_aux misuse; the same kind of error as jax
    "root not a pair": lambda m, a: m.custom_root(
        lambda x: x - a, a, lambda f, x: x, lambda g, r: r, has_aux=True
    ),
    "root triple": lambda m, a: m.custom_root(
        lambda x: x - a, a, lambda f, x: (x, x, x), lambda g, r: r, has_aux=True
    ),
    "root wrong tree": lambda m, a: m.custom_root(
        lambda x: x - a, a, lambda f, x: ((x, x), 1.0), lambda g, r: r, has_aux=True
    ),
    "root aux without has_aux": lambda m, a: m.custom_root(
        lambda x: x - a, a, lambda f, x: (x, 1.0), lambda g, r: r
    ),
    "linear not a pair": lambda m, a: m.custom_linear_solve(
        lambda x: x * 2, a, lambda f, r: r / 2, has_aux=True
    ),
    "linear bad shape": lambda m, a: m.custom_linear_solve(
        lambda x: x * 2, a, lambda f, r: (r[:1], r), has_aux=True
    ),
    "linear aux without has_aux": lambda m, a: m.custom_linear_solve(
        lambda x: x * 2, a, lambda f, r: (r / 2, r)
    ),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_has_aux_misuse_raises_as_jax(name):
    both(BAD[name], np.ones(2, np.float32), context=name)
