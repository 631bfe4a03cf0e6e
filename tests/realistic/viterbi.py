"""Viterbi decoding of an HMM in log space: forward max-product recursion in lax.scan
storing argmax backpointers, backtrace with a reverse lax.scan, and the forward algorithm
(logsumexp) for the sequence log-likelihood, batched over sequences with jax.vmap."""

import jax
import jax.numpy as jnp
from jax import lax, nn


def viterbi(log_init, log_trans, log_emit, obs):
    def forward(delta, o):
        scores = delta[:, None] + log_trans
        best_prev = jnp.argmax(scores, axis=0)
        delta = jnp.max(scores, axis=0) + log_emit[:, o]
        return delta, best_prev

    delta0 = log_init + log_emit[:, obs[0]]
    delta, backptrs = lax.scan(forward, delta0, obs[1:])
    last = jnp.argmax(delta)

    def back(state, ptr):
        prev = ptr[state]
        return prev, state

    first, path = lax.scan(back, last, backptrs, reverse=True)
    return jnp.concatenate([first[None], path]), jnp.max(delta)


def forward_loglik(log_init, log_trans, log_emit, obs):
    def step(alpha, o):
        alpha = nn.logsumexp(alpha[:, None] + log_trans, axis=0) + log_emit[:, o]
        return alpha, None

    alpha, _ = lax.scan(step, log_init + log_emit[:, obs[0]], obs[1:])
    return nn.logsumexp(alpha)


def run(init_logits, trans_logits, emit_logits, obs):
    log_init = nn.log_softmax(init_logits)
    log_trans = nn.log_softmax(trans_logits, axis=-1)
    log_emit = nn.log_softmax(emit_logits, axis=-1)
    paths, best = jax.vmap(viterbi, in_axes=(None, None, None, 0))(
        log_init, log_trans, log_emit, obs
    )
    loglik = jax.vmap(forward_loglik, in_axes=(None, None, None, 0))(
        log_init, log_trans, log_emit, obs
    )
    return paths, best, loglik, best <= loglik


def inputs(rng):
    states, symbols = 3, 4
    return (
        rng.standard_normal(states).astype("float32"),
        rng.standard_normal((states, states)).astype("float32"),
        rng.standard_normal((states, symbols)).astype("float32"),
        rng.integers(0, symbols, (2, 7)).astype("int32"),
    )
