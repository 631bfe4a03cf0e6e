"""An LSTM sequence classifier over padded int32 token sequences: lax.scan over time
with a length mask, a reverse scan for a bidirectional pass, a step counter carried in
int32, and an RMSProp update written out. The parameters and the optimizer state are
the state arguments. Clean."""

import jax
import jax.numpy as jnp
from jax import lax

VOCAB, EMBED, HIDDEN, CLASSES = 50, 8, 16, 3


def init(key):
    k = jax.random.split(key, 4)
    scale = 1.0 / jnp.sqrt(HIDDEN)
    return {
        "embed": jax.random.normal(k[0], (VOCAB, EMBED)),
        "wx": jax.random.normal(k[1], (EMBED, 4 * HIDDEN)) * scale,
        "wh": jax.random.normal(k[2], (HIDDEN, 4 * HIDDEN)) * scale,
        "b": jnp.zeros(4 * HIDDEN).at[HIDDEN : 2 * HIDDEN].set(1.0),  # forget-gate bias
        "head": jax.random.normal(k[3], (2 * HIDDEN, CLASSES)) * scale,
    }


def lstm_cell(params, carry, inputs):
    h, c, n = carry
    x, valid = inputs
    z = x @ params["wx"] + h @ params["wh"] + params["b"]
    i, f, g, o = jnp.split(z, 4, axis=-1)
    new_c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    new_h = jax.nn.sigmoid(o) * jnp.tanh(new_c)
    keep = valid[:, None]
    h = jnp.where(keep, new_h, h)
    c = jnp.where(keep, new_c, c)
    return (h, c, n + valid.astype(jnp.int32)), h


def encode(params, tokens, lengths, reverse=False):
    batch, steps = tokens.shape
    xs = params["embed"][tokens].swapaxes(0, 1)
    valid = jnp.arange(steps)[:, None] < lengths[None, :]
    init = (jnp.zeros((batch, HIDDEN)), jnp.zeros((batch, HIDDEN)), jnp.zeros(batch, jnp.int32))
    (h, _, seen), _ = lax.scan(
        lambda carry, inp: lstm_cell(params, carry, inp), init, (xs, valid), reverse=reverse
    )
    return h, seen


def loss_fn(params, tokens, lengths, labels):
    fwd, seen = encode(params, tokens, lengths)
    bwd, _ = encode(params, tokens, lengths, reverse=True)
    logits = jnp.concatenate([fwd, bwd], axis=-1) @ params["head"]
    logp = jax.nn.log_softmax(logits)
    nll = -jnp.take_along_axis(logp, labels[:, None], axis=-1)[:, 0]
    return jnp.sum(nll) / jnp.maximum(jnp.sum(seen > 0), 1).astype(jnp.float32)


@jax.jit
def train_step(params, opt_state, tokens, lengths, labels, lr=1e-2, decay=0.9, eps=1e-6):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, lengths, labels)
    sq = jax.tree.map(lambda s, g: decay * s + (1 - decay) * g * g, opt_state["sq"], grads)
    params = jax.tree.map(lambda p, g, s: p - lr * g / (jnp.sqrt(s) + eps), params, grads, sq)
    return params, {"sq": sq, "steps": opt_state["steps"] + 1}, loss


def lint_target():
    params = jax.eval_shape(init, jax.random.key(0))
    opt_state = {
        "sq": jax.tree.map(lambda p: jax.ShapeDtypeStruct(p.shape, p.dtype), params),
        "steps": jax.ShapeDtypeStruct((), jnp.int32),
    }
    tokens = jax.ShapeDtypeStruct((4, 7), jnp.int32)
    lengths = jax.ShapeDtypeStruct((4,), jnp.int32)
    labels = jax.ShapeDtypeStruct((4,), jnp.int32)
    return train_step, (params, opt_state, tokens, lengths, labels), {"state_argnums": (0, 1)}
