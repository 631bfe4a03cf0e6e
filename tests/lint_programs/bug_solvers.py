"""Root finding and fixed-point solvers with planted bugs: a float64 numpy tolerance
and a float64 numpy initial guess (silently float32 with x64 off), a fori_loop error
accumulator that starts as a weak Python float, and a cond whose branches return an
iteration count of different types; the caller passes a float64 numpy scalar."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

TOL = np.float64(1e-12)


def newton(f, x0, max_iter=30):
    df = jax.grad(f)

    def cond(state):
        _, dx, i = state
        return (jnp.abs(dx) > TOL) & (i < max_iter)  # expect: x64-truncation

    def body(state):
        x, _, i = state
        dx = f(x) / df(x)
        return x - dx, dx, i + 1

    x, _, iters = lax.while_loop(cond, body, (x0, jnp.ones_like(x0), 0))
    return x, iters


def fixed_point(g, n):
    x = jnp.full((n,), np.float64(0.5))  # expect: x64-truncation

    def body(i, state):
        x, err = state
        new = g(x)
        return new, err + jnp.max(jnp.abs(new - x))  # expect: carry-change

    return lax.fori_loop(0, 20, body, (x, 0.0))


def refine(x, count, converged):
    return lax.cond(
        converged,
        lambda: (x, 0),  # expect: carry-change
        lambda: (x - 0.1 * jnp.sin(x), count + 1),
    )


def solve(a, count):  # expect: x64-truncation
    root, iters = newton(lambda x: x**3 - a, jnp.float32(1.0))
    fp, err = fixed_point(jnp.cos, 3)
    return refine(root, count, err < 1e-3), iters, fp


def lint_target():
    # a float64 numpy scalar argument: float32 with x64 off (found at the def line)
    return solve, (np.float64(2.0), jnp.int32(0)), {}
