"""Autoregressive decoding of a toy language model: temperature, top-k and top-p
(nucleus) filtering with jnp.sort / cumsum / where, keys split inside lax.scan."""

import jax.numpy as jnp
from jax import lax, nn, random


def top_k_filter(logits, k):
    kth = jnp.sort(logits, axis=-1)[..., -k][..., None]
    return jnp.where(logits < kth, -jnp.inf, logits)


def top_p_filter(logits, p):
    sorted_logits = jnp.sort(logits, axis=-1)[..., ::-1]
    sorted_indices = jnp.argsort(logits, axis=-1)[..., ::-1]
    cumulative = jnp.cumsum(nn.softmax(sorted_logits, axis=-1), axis=-1)
    remove = cumulative > p
    # keep the first token above the threshold
    remove = jnp.concatenate([jnp.zeros_like(remove[..., :1]), remove[..., :-1]], axis=-1)
    sorted_logits = jnp.where(remove, jnp.full_like(sorted_logits, -1e10), sorted_logits)
    inverse = jnp.argsort(sorted_indices, axis=-1)
    return jnp.take_along_axis(sorted_logits, inverse, axis=-1)


def model(params, tokens):
    emb = params["embed"][tokens]
    h = jnp.tanh(emb @ params["w"])
    return h @ params["embed"].T


def sample(params, key, prompt, length, temperature=0.8, top_k=5, top_p=0.9):
    def step(carry, _):
        key, token, logprob = carry
        key, subkey = random.split(key)
        logits = model(params, token) / temperature
        logits = top_k_filter(logits, top_k)
        logits = top_p_filter(logits, top_p)
        next_token = random.categorical(subkey, logits, axis=-1).astype(token.dtype)
        lp = nn.log_softmax(logits, axis=-1)
        logprob = logprob + jnp.take_along_axis(lp, next_token[:, None], axis=-1)[:, 0]
        return (key, next_token, logprob), next_token

    init = (key, prompt, jnp.zeros(prompt.shape[0]))
    (_, _, logprob), tokens = lax.scan(step, init, None, length=length)
    return tokens.T, logprob


def greedy(params, prompt, length):
    def step(token, _):
        nxt = jnp.argmax(model(params, token), axis=-1).astype(token.dtype)
        return nxt, nxt

    return lax.scan(step, prompt, jnp.arange(length))[1].T


def run(params, key, prompt):
    tokens, logprob = sample(params, key, prompt, 6)
    return tokens, logprob, greedy(params, prompt, 4)


def inputs(rng):
    vocab, d = 12, 8
    params = {
        "embed": jnp.asarray(rng.standard_normal((vocab, d)), dtype=jnp.float32),
        "w": (rng.standard_normal((d, d)) * 0.5).astype("float32"),
    }
    prompt = jnp.asarray(rng.integers(0, vocab, 3), dtype=jnp.int32)
    return params, random.PRNGKey(7), prompt
