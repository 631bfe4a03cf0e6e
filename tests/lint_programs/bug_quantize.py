"""int8 weight quantization and an integer matmul kernel, with planted bugs: a Python
int outside int8 inside a fori_loop body and in a lax.cond branch, a float64 numpy
scale given straight to lax.mul, a requested int64 accumulator, and an int8 tensor
meeting int32 zero points."""

import jax.numpy as jnp
import numpy as np
from jax import lax

INV_SCALE = np.float64(127.0)


def quantize(w):
    scaled = lax.mul(w, INV_SCALE)  # expect: x64-truncation
    return jnp.clip(jnp.round(scaled), -127, 127).astype(jnp.int8)


def int_matmul(q, x_q):
    acc = jnp.zeros((q.shape[0], x_q.shape[1]), dtype=jnp.int64)  # expect: x64-truncation
    return acc + jnp.dot(q, x_q, preferred_element_type=jnp.int32)


def saturating_shift(q, steps):
    def body(i, v):
        return jnp.where(v > 0, v - 1, v + 200)  # expect: literal-overflow

    return lax.fori_loop(0, steps, body, q)


def maybe_flip(q, flip):
    return lax.cond(flip, lambda v: v ^ 255, lambda v: v, q)  # expect: literal-overflow


def dequantize(q, zero_points, scale):
    return (q - zero_points) * scale  # expect: implicit-promotion


def pipeline(w, x_q, zero_points, flip):
    q = quantize(w)
    q = saturating_shift(q, 2)
    q = maybe_flip(q, flip)
    y = int_matmul(q, x_q)
    return dequantize(q, zero_points, 1.0 / 127.0), y


def lint_target():
    w = jnp.linspace(-1.0, 1.0, 12, dtype=jnp.float32).reshape(3, 4)
    x_q = jnp.ones((4, 2), jnp.int8)
    zero_points = jnp.zeros((4,), jnp.int32)
    return pipeline, (w, x_q, zero_points, jnp.bool_(True)), {}
