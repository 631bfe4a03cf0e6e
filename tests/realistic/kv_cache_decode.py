"""Autoregressive decoding with a key/value cache: lax.dynamic_update_slice writes each
new position into a preallocated cache, attention masks positions beyond the current
index, greedy argmax tokens are fed back through lax.scan; the cache index is a
default-int array (an int32 index with Python 0s is refused by jax under x64)."""

import jax.numpy as jnp
from jax import lax, nn


def attend(q, k_cache, v_cache, index):
    scores = jnp.einsum("hd,thd->ht", q, k_cache) / jnp.sqrt(q.shape[-1])
    valid = jnp.arange(k_cache.shape[0]) <= index
    scores = jnp.where(valid[None, :], scores, jnp.finfo(scores.dtype).min)
    return jnp.einsum("ht,thd->hd", nn.softmax(scores, axis=-1), v_cache)


def decode(params, first_token, max_len=6, heads=2):
    embed, wq, wk, wv, wo = params
    d = embed.shape[1]
    hd = d // heads
    cache_k = jnp.zeros((max_len, heads, hd), embed.dtype)
    cache_v = jnp.zeros((max_len, heads, hd), embed.dtype)

    def step(carry, _):
        token, index, ck, cv = carry
        x = embed[token]
        q = (x @ wq).reshape(heads, hd)
        k = (x @ wk).reshape(1, heads, hd)
        v = (x @ wv).reshape(1, heads, hd)
        ck = lax.dynamic_update_slice(ck, k, (index, 0, 0))
        cv = lax.dynamic_update_slice_in_dim(cv, v, index, axis=0)
        out = attend(q, ck, cv, index).reshape(d)
        logits = (x + out) @ wo
        token = jnp.argmax(logits).astype(jnp.int32)
        return (token, index + 1, ck, cv), (token, nn.log_softmax(logits)[token])

    init = (first_token, jnp.array(0), cache_k, cache_v)
    (_, index, ck, cv), (tokens, logps) = lax.scan(step, init, None, length=max_len)
    return tokens, logps.sum(), index, lax.dynamic_slice_in_dim(ck, 2, 3), cv.sum(axis=(1, 2))


def run(params, first_token):
    return decode(params, first_token)


def inputs(rng):
    vocab, d = 10, 8

    def w(*s):
        return (rng.standard_normal(s) / 3).astype("float32")

    params = (w(vocab, d), w(d, d), w(d, d), w(d, d), w(d, vocab))
    return tuple(jnp.asarray(p) for p in params), jnp.int32(3)
