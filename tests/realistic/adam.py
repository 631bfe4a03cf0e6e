import jax
import jax.numpy as jnp


def run(params, grads, m, v, step, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * jnp.square(g), v, grads)
    step = step + 1
    mhat = jax.tree_util.tree_map(lambda m: m / (1 - b1**step), m)
    vhat = jax.tree_util.tree_map(lambda v: v / (1 - b2**step), v)
    params = jax.tree_util.tree_map(
        lambda p, mh, vh: p - lr * mh / (jnp.sqrt(vh) + eps), params, mhat, vhat
    )
    return params, m, v, step


def inputs(rng):
    params = {"w": rng.standard_normal((3, 4)).astype("float32"), "b": jnp.zeros(4)}
    grads = {
        "w": rng.standard_normal((3, 4)).astype("float32"),
        "b": rng.standard_normal(4).astype("float32"),
    }
    zeros = {"w": jnp.zeros((3, 4)), "b": jnp.zeros(4)}
    return params, grads, zeros, zeros, jnp.asarray(0, jnp.int32)
