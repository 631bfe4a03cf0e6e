import jax.numpy as jnp
from jax import lax


def newton(f, df, x0, tol=1e-5, max_iter=30):
    def cond_fun(state):
        _, step, i = state
        return (jnp.max(jnp.abs(step)) > tol) & (i < max_iter)

    def body_fun(state):
        x, _, i = state
        step = f(x) / df(x)
        return x - step, step, i + 1

    x, _, iters = lax.while_loop(cond_fun, body_fun, (x0, jnp.full_like(x0, jnp.inf), 0))
    return x, iters


def bisect(f, lo, hi, tol=1e-4):
    def cond_fun(bounds):
        lo, hi = bounds
        return jnp.any(hi - lo > tol)

    def body_fun(bounds):
        lo, hi = bounds
        mid = (lo + hi) / 2
        same_sign = jnp.sign(f(mid)) == jnp.sign(f(lo))
        return jnp.where(same_sign, mid, lo), jnp.where(same_sign, hi, mid)

    lo, hi = lax.while_loop(cond_fun, body_fun, (lo, hi))
    return (lo + hi) / 2


def run(ecc, mean_anomaly):
    def kepler(e):
        return e - ecc * jnp.sin(e) - mean_anomaly

    def dkepler(e):
        return 1 - ecc * jnp.cos(e)

    e_newton, iters = newton(kepler, dkepler, mean_anomaly)
    e_bisect = bisect(kepler, jnp.zeros_like(mean_anomaly), jnp.full_like(mean_anomaly, 2 * jnp.pi))
    sqrt2, n = newton(lambda x: x**2 - 2.0, lambda x: 2 * x, 1.0)
    return e_newton, iters, e_bisect, sqrt2, n


def inputs(rng):
    return 0.3, rng.uniform(0.1, 3.0, size=(7,)).astype("float32")
