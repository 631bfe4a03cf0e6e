"""A decoder attention layer with every masking route of nn.dot_product_attention: a
learned relative-position bias=, a padding mask=, is_causal=, an explicit scale=, ragged
query/key sequence lengths, grouped key/value heads, and the gradient of a loss through it."""

import jax
import jax.numpy as jnp
from jax import nn


def relative_bias(table, t_q, t_k):
    rel = jnp.arange(t_k)[None, :] - jnp.arange(t_q)[:, None]
    rel = jnp.clip(rel, -3, 3) + 3
    return jnp.transpose(table[rel], (2, 0, 1))[None]


def attend(params, x, pad, lengths):
    q = jnp.einsum("btd,dhk->bthk", x, params["wq"])
    k = jnp.einsum("btd,dhk->bthk", x, params["wk"])
    v = jnp.einsum("btd,dhk->bthk", x, params["wv"])
    t = x.shape[1]
    bias = relative_bias(params["table"], t, t)
    mask = pad[:, None, None, :]
    a = nn.dot_product_attention(q, k, v, bias=bias, mask=mask, is_causal=True)
    b = nn.dot_product_attention(q, k[:, :, :1], v[:, :, :1], scale=0.25)
    c = nn.dot_product_attention(q, k, v, query_seq_lengths=lengths, key_value_seq_lengths=lengths)
    return a, b, c


def loss(params, x, pad, lengths):
    a, _, c = attend(params, x, pad, lengths)
    return jnp.mean(a**2) + jnp.mean(c * a)


def run(params, x, pad, lengths):
    outs = attend(params, x, pad, lengths)
    value, grads = jax.value_and_grad(loss)(params, x, pad, lengths)
    return outs, value, grads


def inputs(rng):
    d, h, k = 6, 2, 3
    params = {
        name: (rng.standard_normal((d, h, k)) / d**0.5).astype("float32")
        for name in ("wq", "wk", "wv")
    }
    params["table"] = (0.1 * rng.standard_normal((7, h))).astype("float32")
    x = rng.standard_normal((2, 5, d)).astype("float32")
    pad = jnp.array([[True] * 5, [True] * 3 + [False] * 2])
    return params, x, pad, jnp.array([5, 3], dtype=jnp.int32)
