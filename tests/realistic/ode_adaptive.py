import jax.numpy as jnp
from jax import lax


def f(t, y, k):
    return jnp.stack([y[1], -k * y[0] - 0.1 * y[1] + jnp.sin(t)])


def run(y0, k, t_end=3.0):
    def cond(state):
        t, _y, _h, n = state
        return (t < t_end) & (n < 200)

    def body(state):
        t, y, h, n = state
        h = jnp.minimum(h, t_end - t)
        k1 = f(t, y, k)
        k2 = f(t + h / 2, y + h / 2 * k1, k)
        y_half = y + h * k2
        y_full = y + h * k1
        err = jnp.max(jnp.abs(y_half - y_full))
        accept = err < 1e-2
        t = jnp.where(accept, t + h, t)
        y = jnp.where(accept, y_half, y)
        h = h * jnp.clip(0.9 * jnp.sqrt(1e-2 / (err + 1e-12)), 0.2, 5.0)
        return t, y, h, n + 1

    t, y, h, n = lax.while_loop(cond, body, (jnp.float32(0), y0, jnp.float32(0.1), 0))
    return t, y, h, n


def inputs(rng):
    return rng.standard_normal(2).astype("float32"), 2.0
