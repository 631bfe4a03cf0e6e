"""A learning-to-rank evaluation: lax.sort with several operands and num_keys for
tie-breaking by id, lax.sort_key_val, jnp.lexsort on (score, group), jnp.argsort with
descending= and stable=, jnp.partition / argpartition for top-k candidates, NDCG@k, and
lax.top_k on int scores."""

import jax.numpy as jnp
from jax import lax


def dcg(relevance, k):
    gains = (2.0 ** relevance[..., :k] - 1) / jnp.log2(jnp.arange(2, k + 2))
    return jnp.sum(gains, axis=-1)


def run(scores, relevance, groups, k=3):
    ids = jnp.broadcast_to(jnp.arange(scores.shape[-1], dtype=jnp.int32), scores.shape)
    neg_sorted, ids_sorted, rel_sorted = lax.sort((-scores, ids, relevance), num_keys=1)
    keys, vals = lax.sort_key_val(-scores, relevance, dimension=-1)
    ideal = -jnp.sort(-relevance, axis=-1)
    ndcg = dcg(rel_sorted, k) / jnp.maximum(dcg(ideal, k), 1e-9)
    order = jnp.lexsort((scores[0], groups))
    desc = jnp.argsort(scores, axis=-1, descending=True, stable=True)
    part = jnp.partition(scores, 2, axis=-1)[..., :2]
    apart = jnp.argpartition(-scores, 2, axis=-1)
    top_vals, top_idx = lax.top_k(jnp.round(scores * 10).astype(jnp.int32), k)
    ranks = jnp.argsort(jnp.argsort(-scores, axis=-1), axis=-1)
    return (
        neg_sorted,
        ids_sorted,
        rel_sorted,
        keys,
        vals,
        ndcg,
        order,
        desc,
        jnp.sort(part, axis=-1),
        jnp.sort(apart[..., :2], axis=-1),
        top_vals,
        top_idx,
        ranks,
    )


def inputs(rng):
    scores = jnp.asarray(rng.permutation(12).reshape(2, 6) / 12.0, dtype=jnp.float32)
    relevance = jnp.asarray(rng.integers(0, 4, size=(2, 6)), dtype=jnp.float32)
    groups = jnp.array([1, 0, 1, 2, 0, 2], dtype=jnp.int32)
    return scores, relevance, groups
