"""Rotary position embeddings (RoPE, GPT-NeoX / LLaMA style: rotate_half) and a causal
self-attention whose mask fills with jnp.finfo(dtype).min, as Hugging Face Flax models do."""

import jax.numpy as jnp
from jax import nn


def rope_frequencies(head_dim, max_len, base=10000.0):
    inv_freq = 1.0 / (base ** (jnp.arange(0, head_dim, 2, dtype=jnp.float32) / head_dim))
    t = jnp.arange(max_len, dtype=jnp.float32)
    freqs = jnp.einsum("i,j->ij", t, inv_freq)
    emb = jnp.concatenate((freqs, freqs), axis=-1)
    return jnp.sin(emb), jnp.cos(emb)


def rotate_half(x):
    x1, x2 = jnp.split(x, 2, axis=-1)
    return jnp.concatenate((-x2, x1), axis=-1)


def apply_rotary(x, sin, cos, positions):
    sin = sin[positions][:, None, :]
    cos = cos[positions][:, None, :]
    return x * cos + rotate_half(x) * sin


def causal_attention(q, k, v, dtype=jnp.float32):
    seq = q.shape[0]
    mask = jnp.tril(jnp.ones((seq, seq), dtype="bool"))
    bias = jnp.where(mask, 0.0, jnp.finfo(dtype).min).astype(dtype)
    scores = jnp.einsum("qhd,khd->hqk", q, k) / jnp.sqrt(q.shape[-1]).astype(dtype)
    scores = scores + bias[None]
    probs = nn.softmax(scores, axis=-1)
    return jnp.einsum("hqk,khd->qhd", probs, v), probs


def run(x, wq, wk, wv, positions):
    seq, d = x.shape
    heads = 2
    q = (x @ wq).reshape(seq, heads, d // heads)
    k = (x @ wk).reshape(seq, heads, d // heads)
    v = (x @ wv).reshape(seq, heads, d // heads)
    sin, cos = rope_frequencies(d // heads, 16)
    q = apply_rotary(q, sin, cos, positions)
    k = apply_rotary(k, sin, cos, positions)
    out, probs = causal_attention(q, k, v)
    return out.reshape(seq, d), probs.sum(axis=-1)


def inputs(rng):
    seq, d = 6, 8
    x = rng.standard_normal((seq, d)).astype("float32")
    w = [(rng.standard_normal((d, d)) / d**0.5).astype("float32") for _ in range(3)]
    return (x, *w, jnp.arange(seq) + 3)
