import jax.numpy as jnp
from jax import lax


def run(xmin, xmax, ymin, ymax):
    xs = jnp.linspace(xmin, xmax, 24)
    ys = jnp.linspace(ymin, ymax, 16)
    c = xs[None, :] + 1j * ys[:, None]

    def body(i, state):
        z, count = state
        z = jnp.where(jnp.abs(z) <= 2.0, z * z + c, z)
        count = count + (jnp.abs(z) <= 2.0)
        return z, count

    z0 = jnp.zeros_like(c)
    _, counts = lax.fori_loop(0, 30, body, (z0, jnp.zeros(c.shape, jnp.int32)))
    return counts


def inputs(rng):
    return -2.0, 1.0, -1.2, 1.2
