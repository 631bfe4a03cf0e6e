"""Beam search decoding over a toy recurrent decoder (flax/t5x style): length penalty,
lax.top_k over flattened beam x vocab scores, gather of beam states with
jnp.take_along_axis, finished-sequence bookkeeping, all in lax.while_loop."""

import jax
import jax.numpy as jnp
from jax import lax, nn

EOS = 1
NEG_INF = -1.0e7


def brevity_penalty(alpha, length):
    return jnp.power(((5.0 + length) / 6.0), alpha)


def decoder_step(params, token, hidden):
    x = params["embed"][token]
    hidden = jnp.tanh(x @ params["wx"] + hidden @ params["wh"])
    return nn.log_softmax(hidden @ params["out"]), hidden


def gather_beams(tree, indices):
    return jax.tree_util.tree_map(
        lambda x: jnp.take_along_axis(  # expect: carry-change
            x, indices.reshape(indices.shape + (1,) * (x.ndim - 2)), axis=1
        ),
        tree,
    )


def beam_search(params, init_hidden, beam_size, max_len, alpha=0.6):
    batch, hid = init_hidden.shape
    vocab = params["out"].shape[-1]
    seqs = jnp.zeros((batch, beam_size, max_len + 1), jnp.int32)
    log_probs = jnp.tile(jnp.array([0.0] + [NEG_INF] * (beam_size - 1)), (batch, 1))
    hidden = jnp.broadcast_to(init_hidden[:, None], (batch, beam_size, hid))
    finished_seqs = jnp.zeros_like(seqs)
    finished_scores = jnp.full((batch, beam_size), NEG_INF)
    finished_flags = jnp.zeros((batch, beam_size), jnp.bool_)
    state = (jnp.array(0), seqs, log_probs, hidden, finished_seqs, finished_scores, finished_flags)

    def cond(state):
        i, _, log_probs, _, _, finished_scores, finished_flags = state
        not_at_end = i < max_len
        best_possible = log_probs[:, :1] / brevity_penalty(alpha, max_len)
        worst_finished = jnp.min(finished_scores, axis=1, keepdims=True)
        worst_finished = jnp.where(
            jnp.all(finished_flags, axis=1, keepdims=True), worst_finished, NEG_INF
        )
        improvable = jnp.any(best_possible > worst_finished)
        return not_at_end & improvable

    def body(state):
        i, seqs, log_probs, hidden, f_seqs, f_scores, f_flags = state
        tokens = seqs[:, :, i]
        step_lp, new_hidden = jax.vmap(jax.vmap(lambda t, h: decoder_step(params, t, h)))(
            tokens, hidden
        )
        candidate = log_probs[..., None] + step_lp
        flat = candidate.reshape(batch, beam_size * vocab)
        top_lp, top_idx = lax.top_k(flat, 2 * beam_size)
        beam_idx = top_idx // vocab
        token_idx = (top_idx % vocab).astype(jnp.int32)
        top_seqs = gather_beams(seqs, beam_idx)
        top_seqs = top_seqs.at[:, :, i + 1].set(token_idx)
        top_hidden = gather_beams(new_hidden, beam_idx)
        is_eos = token_idx == EOS
        # alive: best beam_size candidates that did not just finish
        alive_lp = top_lp + is_eos * NEG_INF  # expect: implicit-promotion
        _, alive_idx = lax.top_k(alive_lp, beam_size)
        seqs, log_probs, hidden = gather_beams((top_seqs, alive_lp, top_hidden), alive_idx)
        # finished: merge new finished candidates with the old ones
        new_scores = top_lp / brevity_penalty(alpha, i + 1)
        new_scores = new_scores + (~is_eos) * NEG_INF  # expect: implicit-promotion
        all_seqs = jnp.concatenate([f_seqs, top_seqs], axis=1)
        all_scores = jnp.concatenate([f_scores, new_scores], axis=1)
        all_flags = jnp.concatenate([f_flags, is_eos], axis=1)
        _, keep = lax.top_k(all_scores, beam_size)
        f_seqs, f_scores, f_flags = gather_beams((all_seqs, all_scores, all_flags), keep)
        return i + 1, seqs, log_probs, hidden, f_seqs, f_scores, f_flags

    final = lax.while_loop(cond, body, state)
    _, seqs, log_probs, _, f_seqs, f_scores, f_flags = final
    none_finished = jnp.any(f_flags, axis=1)
    out_seqs = jnp.where(none_finished[:, None, None], f_seqs, seqs)
    out_scores = jnp.where(none_finished[:, None], f_scores, log_probs)
    return out_seqs[:, :, 1:], out_scores, final[0]


def run(params, init_hidden):
    return beam_search(params, init_hidden, beam_size=3, max_len=6)


def inputs(rng):
    vocab, d, h = 7, 5, 6
    params = {
        "embed": jnp.asarray(rng.standard_normal((vocab, d)), dtype=jnp.float32),
        "wx": (rng.standard_normal((d, h)) * 0.5).astype("float32"),
        "wh": (rng.standard_normal((h, h)) * 0.5).astype("float32"),
        "out": rng.standard_normal((h, vocab)).astype("float32"),
    }
    return params, rng.standard_normal((2, h)).astype("float32")
