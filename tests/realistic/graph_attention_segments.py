"""A graph attention layer over an edge list: jax.ops.segment_max / segment_sum with
num_segments and indices_are_sorted, a numerically stable per-node softmax over incoming
edges, leaky_relu with negative_slope, multi-head features via einsum, and segment_min /
segment_prod for degree statistics."""

import jax.numpy as jnp
from jax import nn, ops


def gat_layer(h, w, a_src, a_dst, senders, receivers, n):
    z = jnp.einsum("nd,hde->nhe", h, w)
    logits = nn.leaky_relu(
        jnp.einsum("ehd,hd->eh", z[senders], a_src) + jnp.einsum("ehd,hd->eh", z[receivers], a_dst),
        negative_slope=0.2,
    )
    peak = ops.segment_max(logits, receivers, num_segments=n, indices_are_sorted=True)
    e = jnp.exp(logits - peak[receivers])
    denom = ops.segment_sum(e, receivers, num_segments=n, indices_are_sorted=True)
    alpha = e / (denom[receivers] + 1e-9)
    out = ops.segment_sum(alpha[..., None] * z[senders], receivers, num_segments=n)
    return nn.elu(out.reshape(n, -1)), alpha


def run(h, w, a_src, a_dst, senders, receivers):
    n = h.shape[0]
    out, alpha = gat_layer(h, w, a_src, a_dst, senders, receivers, n)
    ones = jnp.ones_like(receivers)
    degree = ops.segment_sum(ones, receivers, num_segments=n)
    min_src = ops.segment_min(senders, receivers, num_segments=n)
    prod = ops.segment_prod(alpha[:, 0] + 1.0, receivers, num_segments=n)
    return out, alpha, degree, min_src, prod


def inputs(rng):
    receivers = jnp.array([0, 0, 1, 1, 1, 2, 3, 3, 4], dtype=jnp.int32)
    senders = jnp.array([1, 2, 0, 2, 3, 4, 1, 4, 0], dtype=jnp.int32)
    h = rng.standard_normal((5, 4)).astype("float32")
    w = (0.5 * rng.standard_normal((2, 4, 3))).astype("float32")
    a_src = rng.standard_normal((2, 3)).astype("float32")
    a_dst = rng.standard_normal((2, 3)).astype("float32")
    return h, w, a_src, a_dst, senders, receivers
