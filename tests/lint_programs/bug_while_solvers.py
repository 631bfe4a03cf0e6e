"""Iterative solvers with the loop-carry bugs they have had: an error norm started as
jnp.array(jnp.inf) (weak) and updated with a strong float32, an int32 iteration count
compared with a float budget, and a warm start that the solver hands back in
bfloat16. (The bisection's bracket stays weak: no finding.)"""

import jax
import jax.numpy as jnp
from jax import lax

N = 4


def residual(x, a, b):
    return a @ x + 0.1 * jnp.tanh(x) ** 3 - b


def newton(x0, a, b, tol=1e-6, budget=50.0):
    jac = jax.jacfwd(residual)

    def cond(state):
        _, it, err = state
        return (err > tol) & (it < budget)  # expect: implicit-promotion

    def body(state):
        x, it, _ = state
        x = x - jnp.linalg.solve(jac(x, a, b), residual(x, a, b))
        return x, it + 1, jnp.linalg.norm(residual(x, a, b))  # expect: carry-change

    return lax.while_loop(cond, body, (x0, jnp.zeros((), jnp.int32), jnp.array(jnp.inf)))


def bisect(f, lo, hi, tol=1e-5):
    def cond(state):
        lo, hi = state
        return hi - lo > tol

    def body(state):
        lo, hi = state
        mid = 0.5 * (lo + hi)
        left = jnp.sign(f(mid)) == jnp.sign(f(lo))
        return jnp.where(left, mid, lo), jnp.where(left, hi, mid)

    return lax.while_loop(cond, body, (lo, hi))


@jax.jit
def solve(warm, a, b, scale):
    x, iters, err = newton(warm, a, b)
    lo, hi = bisect(lambda t: t**3 - scale * t - 5.0, 2.0, 3.0)
    stats = {"iters": iters, "err": err, "root": 0.5 * (lo + hi)}
    return x.astype(jnp.bfloat16), stats  # expect: weak-flip


def lint_target():
    vec = jax.ShapeDtypeStruct((N,), jnp.float32)
    mat = jax.ShapeDtypeStruct((N, N), jnp.float32)
    scale = jax.ShapeDtypeStruct((), jnp.float32)
    return solve, (vec, mat, vec, scale), {"state_argnums": 0}
