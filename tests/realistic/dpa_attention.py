"""Multi-head attention through jax.nn.dot_product_attention (the fused API models such as
those in Flax NNX call): causal masking, an additive bias, a boolean padding mask, and GQA
(fewer key/value heads than query heads), in float32 and bfloat16."""

import jax.numpy as jnp
from jax import nn


def split_heads(x, heads):
    b, t, d = x.shape
    return x.reshape(b, t, heads, d // heads)


def run(x, wq, wkv, lengths):
    b, t, d = x.shape
    q = split_heads(x @ wq, 4)
    kv = x @ wkv
    k, v = jnp.split(kv, 2, axis=-1)
    k, v = split_heads(k, 2), split_heads(v, 2)
    causal = nn.dot_product_attention(q, k, v, is_causal=True)
    positions = jnp.arange(t)
    pad = positions[None, :] < lengths[:, None]
    mask = pad[:, None, None, :] & pad[:, None, :, None]
    bias = -0.1 * jnp.abs(positions[:, None] - positions[None, :]).astype(x.dtype)
    masked = nn.dot_product_attention(q, k, v, bias=bias[None, None], mask=mask, scale=0.5)
    half = nn.dot_product_attention(
        q.astype(jnp.bfloat16), k.astype(jnp.bfloat16), v.astype(jnp.bfloat16), is_causal=True
    )
    return causal.reshape(b, t, d), jnp.where(pad[:, :, None, None], masked, 0.0), half


def inputs(rng):
    b, t, d = 2, 5, 16
    x = rng.standard_normal((b, t, d)).astype("float32")
    wq = (rng.standard_normal((d, d)) / 4).astype("float32")
    wkv = (rng.standard_normal((d, d)) / 4).astype("float32")
    return x, wq, wkv, jnp.array([5, 3], dtype=jnp.int32)
