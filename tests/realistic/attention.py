import math

import jax.numpy as jnp
from jax import nn


def run(q, k, v):
    t, d = q.shape[-2], q.shape[-1]
    scores = jnp.einsum("...qd,...kd->...qk", q, k) / math.sqrt(d)
    mask = jnp.tril(jnp.ones((t, t), dtype=bool))
    scores = jnp.where(mask, scores, -jnp.inf)
    weights = nn.softmax(scores, axis=-1)
    return jnp.einsum("...qk,...kd->...qd", weights, v)


def inputs(rng):
    q, k, v = (rng.standard_normal((2, 5, 8)).astype("float32") for _ in range(3))
    return q, k, v
