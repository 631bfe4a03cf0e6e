import jax.numpy as jnp


def run(x, gamma, beta, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    y = (x - mean) * jnp.reciprocal(jnp.sqrt(var + eps))
    return y * gamma + beta


def inputs(rng):
    x = rng.standard_normal((4, 6, 8)).astype("float32")
    return x, jnp.ones((8,), jnp.float32), jnp.zeros((8,), jnp.float32)
