"""Gumbel-softmax sampling with the straight-through estimator (hard one-hot forward,
soft gradient via stop_gradient), a straight-through rounding quantiser, and their
gradients with jax.grad, as categorical VAEs and discrete-latent models write them."""

import jax
import jax.numpy as jnp
from jax import lax, nn, random


def gumbel_softmax(key, logits, temperature=0.5, hard=True):
    g = random.gumbel(key, logits.shape, logits.dtype)
    y = nn.softmax((logits + g) / temperature, axis=-1)
    if hard:
        index = jnp.argmax(y, axis=-1)
        y_hard = nn.one_hot(index, logits.shape[-1], dtype=y.dtype)
        y = y_hard - lax.stop_gradient(y) + y
    return y


def round_ste(x):
    return x + lax.stop_gradient(jnp.round(x) - x)


def loss(logits, w, key, x):
    sample = gumbel_softmax(key, logits)
    q = round_ste(x * 4.0) / 4.0
    return jnp.sum(sample @ w) + jnp.sum((q - x) ** 2) + 0.1 * jnp.sum(q * x)


def run(key, logits, w, x):
    k1, k2 = random.split(key)
    soft = gumbel_softmax(k1, logits, hard=False)
    hard = gumbel_softmax(k1, logits)
    value, grads = jax.value_and_grad(loss, argnums=(0, 1, 3))(logits, w, k2, x)
    categorical = random.categorical(k2, logits, axis=-1)
    return soft, hard, value, grads, categorical


def inputs(rng):
    logits = rng.standard_normal((4, 5)).astype("float32")
    w = rng.standard_normal((5, 3)).astype("float32")
    x = rng.standard_normal(6).astype("float32")
    return random.PRNGKey(7), logits, w, x
