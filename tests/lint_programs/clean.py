"""Clean JAX code: weak scalars, explicit casts, jax.nn and lax building blocks. Lint
must find nothing here."""

import jax
import jax.numpy as jnp
from jax import lax


def weak_scalars(x, i, h):
    y = 2.0 * x + 1 - x / 3.0
    j = i * 2 + 7 // 2
    g = h * 0.5 + 1
    return y, j, g, x**2, jnp.maximum(x, 0.0)


def explicit_casts(i, x, h):
    a = i.astype(jnp.float32) + x
    b = h.astype(jnp.float32) * x
    c = lax.convert_element_type(i, jnp.float32) - x
    d = jnp.asarray(i, dtype=jnp.float32) / (x + 1.0)
    return a, b, c, d


def nn_blocks(x, w, b):
    h = jax.nn.relu(x @ w + b)
    s = jax.nn.softmax(h, axis=-1)
    g = jax.nn.gelu(h)
    ls = jax.nn.log_softmax(h)
    sig = jax.nn.sigmoid(h) * jax.nn.silu(h)
    return s, g, ls, sig, jax.nn.logsumexp(h, axis=-1)


def layernorm(x, gamma, beta, eps=1e-5):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return gamma * (x - mu) / jnp.sqrt(var + eps) + beta


def attention(q, k, v):
    d = q.shape[-1]
    logits = jnp.einsum("...qd,...kd->...qk", q, k) / jnp.sqrt(d)
    mask = jnp.tril(jnp.ones(logits.shape[-2:], dtype=bool))
    logits = jnp.where(mask, logits, -1e9)
    return jnp.einsum("...qk,...kd->...qd", jax.nn.softmax(logits, axis=-1), v)


def adam_update(params, grads, m, v, count, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    count = count + 1
    t = count.astype(jnp.float32)
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    mhat = jax.tree.map(lambda m: m / (1 - b1**t), m)
    vhat = jax.tree.map(lambda v: v / (1 - b2**t), v)
    params = jax.tree.map(lambda p, m, v: p - lr * m / (jnp.sqrt(v) + eps), params, mhat, vhat)
    return params, m, v, count


def lax_loops(x, n):
    def body(i, acc):
        return acc + x[i % x.shape[0]] * 0.5

    s = lax.fori_loop(0, 5, body, jnp.zeros((), x.dtype))
    c, ys = lax.scan(lambda c, xi: (c * 0.9 + xi, c), jnp.zeros((), x.dtype), x)
    w = lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))
    b = lax.cond(n > 2, lambda: x * 2.0, lambda: x - 1.0)
    return s, c, ys, w, b, jnp.cumsum(x), jnp.sort(x), jnp.argmax(x)


def int_code(i, u):
    a = i + 100
    b = u + 200
    c = jnp.where(i > 0, i, 0)
    d = u & 0x0F
    return a, b, c, d, jnp.clip(i, 0, 10), jnp.sum(i)
