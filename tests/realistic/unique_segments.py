"""Static-shape set and grouping operations as jit-compatible code writes them:
jnp.unique(size=, fill_value=, return_inverse=, return_counts=), jnp.bincount(length=,
weights=), jax.ops.segment_max / segment_min / segment_sum over the inverse indices,
a scatter-max with .at[].max, and per-group normalisation."""

import jax.numpy as jnp
from jax import ops


def group_stats(keys, values, max_groups=6):
    uniq, inverse, counts = jnp.unique(
        keys, size=max_groups, fill_value=-1, return_inverse=True, return_counts=True
    )
    inverse = inverse.reshape(-1)
    sums = ops.segment_sum(values, inverse, num_segments=max_groups)
    maxes = ops.segment_max(values, inverse, num_segments=max_groups)
    mins = ops.segment_min(values, inverse, num_segments=max_groups)
    means = sums / jnp.maximum(counts, 1)  # expect: implicit-promotion
    centred = values - means[inverse]
    return uniq, counts, means, maxes, mins, centred


def run(keys, values, tokens):
    stats = group_stats(keys, values)
    hist = jnp.bincount(tokens, length=8)
    weighted = jnp.bincount(tokens, weights=jnp.abs(values[: tokens.shape[0]]), length=8)
    best = jnp.full(8, -jnp.inf).at[tokens].max(values[: tokens.shape[0]])
    first = jnp.zeros(8, jnp.int32).at[tokens].min(jnp.arange(tokens.shape[0], dtype=jnp.int32))
    present = jnp.isin(jnp.arange(8), tokens)
    return stats, hist, weighted, best, first, present, jnp.unique(tokens, size=8, fill_value=0)


def inputs(rng):
    return (
        rng.choice([3, 7, 11, 20], size=12).astype("int32"),
        rng.standard_normal(12).astype("float32"),
        rng.integers(0, 6, 9).astype("int32"),
    )
