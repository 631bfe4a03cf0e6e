"""A deep residual MLP whose blocks are wrapped in jax.checkpoint (remat) with a
checkpoint policy, stacked parameters run through lax.scan (scan-over-layers, as large
models are written), and the loss's gradient with jax.value_and_grad."""

import functools

import jax
import jax.numpy as jnp
from jax import lax, nn


@functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.nothing_saveable)
def block(x, params):
    w1, b1, w2, scale = params
    h = nn.gelu(x @ w1 + b1, approximate=True)
    h = h @ w2
    return x + scale * h / jnp.sqrt(jnp.mean(h**2, axis=-1, keepdims=True) + 1e-6)


def forward(stacked, x):
    def body(x, params):
        return block(x, params), jnp.mean(x)

    return lax.scan(body, x, stacked)


def loss_fn(stacked, x, y):
    out, means = forward(stacked, x)
    return jnp.mean((out - y) ** 2) + 1e-3 * jnp.sum(means**2)


def run(stacked, x, y):
    remat_loss = jax.checkpoint(loss_fn, prevent_cse=False)
    loss, grads = jax.value_and_grad(remat_loss)(stacked, x, y)
    plain = jax.grad(loss_fn)(stacked, x, y)
    return loss, grads, jax.tree_util.tree_map(lambda a, b: jnp.max(jnp.abs(a - b)), grads, plain)


def inputs(rng):
    layers, d, h = 3, 6, 12

    def w(*shape):
        return (rng.standard_normal(shape) / shape[-2] ** 0.5).astype("float32")

    stacked = (w(layers, d, h), w(layers, 1, h)[:, 0], w(layers, h, d), jnp.full((layers,), 0.5))
    return (
        stacked,
        rng.standard_normal((4, d)).astype("float32"),
        rng.standard_normal((4, d)).astype("float32"),
    )
