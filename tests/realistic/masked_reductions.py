"""Masked statistics over padded variable-length sequences: sum / mean / var / std with
where=, max / min with initial= and where=, argmax with keepdims, prod with where=, any /
all with where=, masked softmax through nn.softmax(where=), and logsumexp with b= weights."""

import jax.numpy as jnp
from jax import nn
from jax.scipy.special import logsumexp


def run(x, lengths, weights):
    mask = jnp.arange(x.shape[1])[None, :] < lengths[:, None]
    total = jnp.sum(x, axis=1, where=mask)
    mean = jnp.mean(x, axis=1, where=mask)
    var = jnp.var(x, axis=1, where=mask, ddof=1)
    std = jnp.std(x, axis=1, where=mask)
    peak = jnp.max(x, axis=1, where=mask, initial=-jnp.inf)
    low = jnp.min(x, axis=1, where=mask, initial=10.0)
    prod = jnp.prod(1.0 + 0.1 * x, axis=1, where=mask)
    positive = jnp.any(x > 1.0, axis=1, where=mask)
    bounded = jnp.all(jnp.abs(x) < 2.0, axis=1, where=mask)
    best = jnp.argmax(jnp.where(mask, x, -jnp.inf), axis=1, keepdims=True)
    attn = nn.softmax(x, axis=-1, where=mask)
    lse = logsumexp(x, axis=1, b=weights * mask)
    lse_sign = logsumexp(x, axis=1, b=weights - 0.5, return_sign=True)
    counts = jnp.count_nonzero(mask, axis=1)
    masked_int = jnp.sum(lengths[:, None] * mask, axis=1, where=mask, initial=1, dtype=jnp.int16)
    ptp = jnp.ptp(x, axis=0)
    return (
        total,
        mean,
        var,
        std,
        peak,
        low,
        prod,
        positive,
        bounded,
        best,
        attn,
        lse,
        lse_sign,
        counts,
        masked_int,
        ptp,
        jnp.nanmax(jnp.where(mask, x, jnp.nan), axis=1),
    )


def inputs(rng):
    x = rng.standard_normal((4, 6)).astype("float32")
    lengths = jnp.array([6, 3, 2, 5], dtype=jnp.int32)
    weights = rng.uniform(size=(4, 6)).astype("float32")
    return x, lengths, weights
