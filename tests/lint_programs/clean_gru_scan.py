"""A GRU language model over a token sequence with jax.lax.scan, NamedTuple parameters,
a custom_vjp gradient clip on the hidden state, a masked loss and gradient clipping by
global norm. Clean."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import lax

VOCAB, EMBED, HIDDEN = 20, 8, 12


class GRUParams(NamedTuple):
    embed: jax.Array
    wz: jax.Array
    wr: jax.Array
    wh: jax.Array
    uz: jax.Array
    ur: jax.Array
    uh: jax.Array
    out: jax.Array


def init(key):
    keys = jax.random.split(key, 8)
    shapes = [(VOCAB, EMBED)] + [(EMBED, HIDDEN)] * 3 + [(HIDDEN, HIDDEN)] * 3 + [(HIDDEN, VOCAB)]
    return GRUParams(*(0.1 * jax.random.normal(k, s) for k, s in zip(keys, shapes, strict=True)))


@jax.custom_vjp
def clip_gradient(x, bound=1.0):
    return x


def _clip_fwd(x, bound):
    return x, bound


def _clip_bwd(bound, g):
    return jnp.clip(g, -bound, bound), None


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def gru_cell(p, h, x):
    z = jax.nn.sigmoid(x @ p.wz + h @ p.uz)
    r = jax.nn.sigmoid(x @ p.wr + h @ p.ur)
    cand = jnp.tanh(x @ p.wh + (r * h) @ p.uh)
    return (1 - z) * h + z * cand


def sequence_loss(p, tokens, mask):
    xs = p.embed[tokens[:-1]]

    def step(h, inputs):
        x, target, valid = inputs
        h = clip_gradient(gru_cell(p, h, x))
        logp = jax.nn.log_softmax(h @ p.out)
        nll = -logp[target]
        return h, jnp.where(valid, nll, 0.0)

    h0 = jnp.zeros((HIDDEN,))
    _, nlls = lax.scan(step, h0, (xs, tokens[1:], mask[1:]))
    return jnp.sum(nlls) / jnp.maximum(jnp.sum(mask[1:].astype(jnp.float32)), 1.0)


def clip_by_global_norm(grads, max_norm=1.0):
    norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(grads)))
    scale = jnp.minimum(1.0, max_norm / (norm + 1e-6))
    return jax.tree.map(lambda g: g * scale, grads)


@jax.jit
def update(p, tokens, mask):
    loss, grads = jax.value_and_grad(sequence_loss)(p, tokens, mask)
    grads = clip_by_global_norm(grads)
    return jax.tree.map(lambda w, g: w - 0.1 * g, p, grads), loss


def lint_target():
    """The update with abstract arguments (shapes and dtypes, as jax.eval_shape gives)."""

    def make():
        tokens = jax.random.randint(jax.random.key(1), (9,), 0, VOCAB)
        return init(jax.random.key(0)), tokens, jnp.arange(9) < 7

    return update, jax.eval_shape(make), {"state_argnums": 0}
