"""Connectionist temporal classification: the CTC forward (alpha) recursion in log space
with jnp.logaddexp inside lax.scan, padded labels and logit paddings as optax has them,
and a best-path (greedy) decoder."""

import jax.numpy as jnp
from jax import lax, nn

NEG_INF = -1e5


def ctc_loss(logits, logit_paddings, labels, label_paddings, blank_id=0):
    batch, max_t, _ = logits.shape
    max_l = labels.shape[1]
    logprobs = nn.log_softmax(logits)
    label_lengths = max_l - jnp.sum(label_paddings, axis=1).astype(jnp.int32)
    # extended label sequence: blank, l1, blank, l2, ..., blank
    ext = jnp.full((batch, 2 * max_l + 1), blank_id, dtype=labels.dtype)
    ext = ext.at[:, 1::2].set(labels)
    ext_len = 2 * label_lengths + 1
    # skip transitions allowed where ext[s] != ext[s-2] and ext[s] is not blank
    prev2 = jnp.pad(ext[:, :-2], ((0, 0), (2, 0)), constant_values=blank_id)
    can_skip = (ext != blank_id) & (ext != prev2)
    s = jnp.arange(2 * max_l + 1)

    emit = jnp.take_along_axis(logprobs, ext[:, None, :].repeat(max_t, axis=1), axis=2)
    alpha0 = jnp.where(s[None, :] < 2, emit[:, 0, :], NEG_INF)
    alpha0 = jnp.where(s[None, :] < ext_len[:, None], alpha0, NEG_INF)

    def step(alpha, xs):
        emit_t, pad_t = xs
        shift1 = jnp.pad(alpha[:, :-1], ((0, 0), (1, 0)), constant_values=NEG_INF)
        shift2 = jnp.pad(alpha[:, :-2], ((0, 0), (2, 0)), constant_values=NEG_INF)
        shift2 = jnp.where(can_skip, shift2, NEG_INF)
        new = jnp.logaddexp(jnp.logaddexp(alpha, shift1), shift2) + emit_t
        new = jnp.where(s[None, :] < ext_len[:, None], new, NEG_INF)
        alpha = jnp.where(pad_t[:, None] > 0, alpha, new)
        return alpha, None

    xs = (jnp.moveaxis(emit, 1, 0)[1:], jnp.moveaxis(logit_paddings, 1, 0)[1:])
    alpha, _ = lax.scan(step, alpha0, xs)
    last = jnp.take_along_axis(alpha, (ext_len - 1)[:, None], axis=1)[:, 0]
    last2 = jnp.take_along_axis(alpha, jnp.maximum(ext_len - 2, 0)[:, None], axis=1)[:, 0]
    return -jnp.logaddexp(last, last2)


def greedy_decode(logits, logit_paddings, blank_id=0):
    best = jnp.argmax(logits, axis=-1)
    prev = jnp.pad(best[:, :-1], ((0, 0), (1, 0)), constant_values=-1)
    keep = (best != prev) & (best != blank_id) & (logit_paddings == 0)
    return jnp.where(keep, best, -1), keep.sum(axis=1)


def run(logits, logit_paddings, labels, label_paddings):
    loss = ctc_loss(logits, logit_paddings, labels, label_paddings)
    per_frame = loss / jnp.maximum(1.0, jnp.sum(1.0 - logit_paddings, axis=1))
    decoded, lengths = greedy_decode(logits, logit_paddings)
    return loss, per_frame, decoded, lengths


def inputs(rng):
    batch, t, vocab, max_l = 3, 10, 5, 4
    logits = rng.standard_normal((batch, t, vocab)).astype("float32")
    logit_paddings = jnp.asarray(
        (jnp.arange(t)[None, :] >= jnp.array([[10], [8], [9]])), dtype=jnp.float32
    )
    labels = jnp.asarray(rng.integers(1, vocab, (batch, max_l)), dtype=jnp.int32)
    label_paddings = jnp.asarray(
        jnp.arange(max_l)[None, :] >= jnp.array([[4], [2], [3]]), dtype=jnp.float32
    )
    return logits, logit_paddings, labels, label_paddings
