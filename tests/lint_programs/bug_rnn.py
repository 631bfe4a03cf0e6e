"""An Elman RNN over hashed token ids with jax.lax.scan, with planted bugs: a hash
constant that wraps int16 tokens, a bfloat16 recurrent weight meeting the float32
hidden state inside the scan body, and a weak Python-float loss accumulator carried
through the scan."""

import jax
import jax.numpy as jnp
from jax import lax

BUCKETS, HIDDEN = 64, 8


def init(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return {
        "embed": jax.random.normal(k1, (BUCKETS, HIDDEN)),
        "wh": (0.1 * jax.random.normal(k2, (HIDDEN, HIDDEN))).astype(jnp.bfloat16),
        "out": jax.random.normal(k3, (HIDDEN, BUCKETS)),
    }


def bucket(tokens):
    return (tokens * 40503) % BUCKETS  # expect: literal-overflow


def rnn_loss(params, tokens):
    ids = bucket(tokens)
    xs = params["embed"][ids[:-1]]

    def step(carry, inputs):
        h, total = carry
        x, target = inputs
        h = jnp.tanh(x + h @ params["wh"])  # expect: implicit-promotion
        logp = jax.nn.log_softmax(h @ params["out"])
        total = total - logp[target]  # expect: carry-change
        return (h, total), h

    (_, total), hs = lax.scan(step, (jnp.zeros(HIDDEN), 0.0), (xs, ids[1:]))
    return total / xs.shape[0], hs


def lint_target():
    params = jax.eval_shape(init, jax.random.key(0))  # shapes and dtypes
    tokens = jnp.arange(10, dtype=jnp.int16)
    return jax.jit(rnn_loss), (params, tokens), {}
