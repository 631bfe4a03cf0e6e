"""Learning-rate schedules evaluated on an integer step, as optax writes them: linear
warmup then cosine decay (jnp.where on the int32 step), exponential decay with
staircase, piecewise-constant boundaries, and an Adam update using the schedule inside
a lax.fori_loop over steps."""

import jax.numpy as jnp
from jax import lax


def warmup_cosine(step, peak=1e-3, warmup=5, total=20, end=1e-5):
    warm = peak * step / warmup  # expect: implicit-promotion
    progress = jnp.clip((step - warmup) / (total - warmup), 0.0, 1.0)
    cosine = end + 0.5 * (peak - end) * (1 + jnp.cos(jnp.pi * progress))
    return jnp.where(step < warmup, warm, cosine)


def exponential(step, init=0.1, rate=0.5, steps=4, staircase=True):
    p = step / steps
    if staircase:
        p = jnp.floor(p)
    return init * rate**p


def piecewise(step, boundaries=(5, 10, 15), scales=(0.5, 0.2, 0.1), init=1.0):
    value = init
    for b, s in zip(boundaries, scales, strict=True):
        value = value * jnp.where(step >= b, s, 1.0)
    return value


def train(w, target, n_steps=20, b1=0.9, b2=0.999, eps=1e-8):
    def body(step, state):
        w, m, v = state
        g = 2 * (w - target)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        count = step + 1
        m_hat = m / (1 - b1**count)
        v_hat = v / (1 - b2**count)
        lr = warmup_cosine(step, peak=0.1)
        return w - lr * m_hat / (jnp.sqrt(v_hat) + eps), m, v

    return lax.fori_loop(0, n_steps, body, (w, jnp.zeros_like(w), jnp.zeros_like(w)))


def run(steps, w, target):
    return (
        warmup_cosine(steps),
        exponential(steps),
        piecewise(steps),
        warmup_cosine(7),
        train(w, target),
    )


def inputs(rng):
    return (
        jnp.arange(0, 25, 3, dtype=jnp.int32),
        rng.standard_normal(4).astype("float32"),
        rng.standard_normal(4).astype("float32"),
    )
