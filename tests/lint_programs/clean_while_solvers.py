"""Iterative solvers in lax.while_loop: damped Newton on a nonlinear system with
jnp.linalg.solve, bisection with an int32 iteration count and a tolerance test, and a
fixed-point iteration whose warm start is the state argument (the solution comes back
as the next call's start). Clean."""

import jax
import jax.numpy as jnp
from jax import lax

N = 4


def residual(x, a, b):
    return a @ x + 0.1 * jnp.tanh(x) ** 3 - b


def newton(x0, a, b, tol=1e-6, max_iter=50):
    jac = jax.jacfwd(residual)

    def cond(state):
        _, it, err = state
        return (err > tol) & (it < max_iter)

    def body(state):
        x, it, _ = state
        step = jnp.linalg.solve(jac(x, a, b), residual(x, a, b))
        damping = jnp.where(it < 3, 0.5, 1.0)
        x = x - damping * step
        return x, it + 1, jnp.linalg.norm(residual(x, a, b))

    x, iters, err = lax.while_loop(cond, body, (x0, jnp.array(0), jnp.array(jnp.inf, jnp.float32)))
    return x, iters, err


def bisect(f, lo, hi, tol=1e-5):
    def cond(state):
        lo, hi, count = state
        return (hi - lo > tol) & (count < 100)

    def body(state):
        lo, hi, count = state
        mid = 0.5 * (lo + hi)
        left = jnp.sign(f(mid)) == jnp.sign(f(lo))
        return jnp.where(left, mid, lo), jnp.where(left, hi, mid), count + 1

    lo, hi, count = lax.while_loop(cond, body, (lo, hi, jnp.zeros((), jnp.int32)))
    return 0.5 * (lo + hi), count


def fixed_point(x0, a, b, relax=0.5):
    def body(state):
        x, _, k = state
        return (1 - relax) * x + relax * (b - 0.1 * jnp.tanh(x) ** 3) / jnp.diag(a), x, k + 1

    def cond(state):
        x, prev, k = state
        return (jnp.max(jnp.abs(x - prev)) > 1e-6) & (k < 200)

    x, _, k = lax.while_loop(cond, body, (x0, x0 + 1.0, 0))
    return x, k


@jax.jit
def solve(warm, a, b):
    x, iters, err = newton(warm, a, b)
    root, count = bisect(lambda t: t**3 - 2.0 * t - 5.0, jnp.float32(2.0), jnp.float32(3.0))
    y, k = fixed_point(warm, a + 10.0 * jnp.eye(N), b)
    return x, {"newton": iters, "err": err, "root": root, "bisect": count, "fixed": k, "y": y}


def lint_target():
    vec = jax.ShapeDtypeStruct((N,), jnp.float32)
    mat = jax.ShapeDtypeStruct((N, N), jnp.float32)
    return solve, (vec, mat, vec), {"state_argnums": 0}
