"""Blockwise (flash-style) attention: keys and values are visited one block at a time in
lax.scan, keeping a running row max, denominator and accumulator (online softmax), and
compared against the plain softmax attention it must equal."""

import jax.numpy as jnp
from jax import lax, nn


def reference_attention(q, k, v):
    s = q @ k.T / jnp.sqrt(q.shape[-1])
    return nn.softmax(s, axis=-1) @ v


def blockwise_attention(q, k, v, block_size=4):
    n_kv, d = k.shape
    num_blocks = n_kv // block_size
    scale = 1.0 / jnp.sqrt(d).astype(q.dtype)
    k_blocks = k.reshape(num_blocks, block_size, d)
    v_blocks = v.reshape(num_blocks, block_size, v.shape[-1])

    def body(carry, kv):
        acc, row_max, denom = carry
        kb, vb = kv
        s = (q @ kb.T) * scale
        block_max = jnp.max(s, axis=-1)
        new_max = jnp.maximum(row_max, block_max)
        correction = jnp.exp(row_max - new_max)
        p = jnp.exp(s - new_max[:, None])
        acc = acc * correction[:, None] + p @ vb
        denom = denom * correction + p.sum(axis=-1)
        return (acc, new_max, denom), block_max

    init = (
        jnp.zeros((q.shape[0], v.shape[-1]), q.dtype),
        jnp.full((q.shape[0],), -jnp.inf, q.dtype),
        jnp.zeros((q.shape[0],), q.dtype),
    )
    (acc, row_max, denom), maxes = lax.scan(body, init, (k_blocks, v_blocks))
    return acc / denom[:, None], row_max + jnp.log(denom), maxes


def run(q, k, v):
    out, lse, maxes = blockwise_attention(q, k, v)
    ref = reference_attention(q, k, v)
    return out, lse, maxes, jnp.max(jnp.abs(out - ref))


def inputs(rng):
    q = rng.standard_normal((5, 8)).astype("float32")
    k = rng.standard_normal((12, 8)).astype("float32")
    v = rng.standard_normal((12, 6)).astype("float32")
    return q, k, v
