"""A deep tanh residual stack trained with rematerialisation: jax.checkpoint with
policy=jax.checkpoint_policies.checkpoint_dots and dots_with_no_batch_dims_saveable,
prevent_cse=False, static_argnums for the depth, jax.remat on a scan body, and the
gradients compared against the non-remat computation."""

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


def block(w, x):
    return x + jnp.tanh(x @ w) * 0.5


@partial(jax.checkpoint, policy=jax.checkpoint_policies.checkpoint_dots)
def block_dots(w, x):
    return block(w, x)


@partial(jax.checkpoint, static_argnums=(2,), prevent_cse=False)
def unrolled(ws, x, depth):
    for i in range(depth):
        x = block(ws[i], x)
    return x


def scanned(ws, x):
    body = jax.remat(
        lambda h, w: (block(w, h), jnp.mean(h)),
        policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable,
    )
    return lax.scan(body, x, ws)


def losses(ws, x):
    a = x
    for w in ws:
        a = block_dots(w, a)
    b = unrolled(ws, x, ws.shape[0])
    c, means = scanned(ws, x)
    d = x
    for w in ws:
        d = block(w, d)
    return jnp.sum(a**2), jnp.sum(b**2), jnp.sum(c**2) + jnp.sum(means), jnp.sum(d**2)


def run(ws, x):
    grads = [jax.grad(lambda w, i=i: losses(w, x)[i])(ws) for i in range(4)]
    values = losses(ws, x)
    return values, grads


def inputs(rng):
    ws = (0.4 * rng.standard_normal((3, 4, 4))).astype("float32")
    return ws, rng.standard_normal((2, 4)).astype("float32")
