"""A bf16 two-layer encoder with f32 accumulation everywhere the accumulation is requested:
lax.dot_general with batch dimensions and preferred_element_type, jnp.einsum and jnp.dot with
preferred_element_type, lax.reduce_precision to emulate bf16 / e4m3 rounding of activations,
and an int8 x int8 -> int32 matmul for the quantised head."""

import jax.numpy as jnp
from jax import lax, nn


def layer(x, w, b):
    # x: [batch, seq, d], w: [batch, d, e] -> contraction over d, batch over dim 0
    h = lax.dot_general(x, w, (((2,), (1,)), ((0,), (0,))), preferred_element_type=jnp.float32)
    return nn.relu(h + b)


def quantize(x, axis=-1):
    scale = jnp.max(jnp.abs(x), axis=axis, keepdims=True) / 127.0
    q = jnp.clip(jnp.round(x / scale), -127, 127).astype(jnp.int8)
    return q, scale


def run(x, w1, b1, w2, head):
    xb = x.astype(jnp.bfloat16)
    h = layer(xb, w1.astype(jnp.bfloat16), b1)
    h16 = lax.reduce_precision(h, exponent_bits=8, mantissa_bits=7)
    h8 = lax.reduce_precision(h, exponent_bits=4, mantissa_bits=3)
    scores = jnp.einsum(
        "bsd,btd->bst",
        h16.astype(jnp.bfloat16),
        h8.astype(jnp.bfloat16),
        preferred_element_type=jnp.float32,
    )
    attn = nn.softmax(scores / jnp.sqrt(h.shape[-1]).astype(jnp.float32), axis=-1)
    mixed = jnp.einsum("bst,btd->bsd", attn, h)
    out = jnp.dot(mixed.astype(jnp.bfloat16), w2, preferred_element_type=jnp.float32)
    qa, sa = quantize(out)
    qw, sw = quantize(head, axis=0)
    acc = lax.dot_general(qa, qw, (((2,), (0,)), ((), ())), preferred_element_type=jnp.int32)
    logits = acc.astype(jnp.float32) * sa * sw
    return h16, h8, out, acc, logits, jnp.matmul(qa, qw, preferred_element_type=jnp.int32)


def inputs(rng):
    x = rng.standard_normal((2, 4, 6)).astype("float32")
    w1 = (0.4 * rng.standard_normal((2, 6, 8))).astype("float32")
    b1 = (0.1 * rng.standard_normal((8,))).astype("float32")
    w2 = jnp.asarray(0.3 * rng.standard_normal((8, 5)), dtype=jnp.bfloat16)
    head = (0.5 * rng.standard_normal((5, 3))).astype("float32")
    return x, w1, b1, w2, head
