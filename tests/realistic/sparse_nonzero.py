"""Static-size sparse extraction in jit-compatible code: jnp.nonzero(size=, fill_value=)
and jnp.argwhere(size=) for active entries, jnp.where(cond, size=) style compaction,
top-k sparsification with lax.top_k, gather/scatter back with .at[].set and
jnp.take_along_axis, jnp.vectorize with a signature, and jnp.piecewise on ints."""

import jax.numpy as jnp
from jax import lax


def compact(x, threshold, k):
    rows, cols = jnp.nonzero(jnp.abs(x) > threshold, size=k, fill_value=-1)
    valid = rows >= 0
    vals = jnp.where(valid, x[rows, cols], 0.0)
    coords = jnp.argwhere(jnp.abs(x) > threshold, size=k, fill_value=0)
    return rows, cols, vals, coords, valid.sum()


def topk_sparsify(x, k):
    vals, idx = lax.top_k(jnp.abs(x), k)
    kept = jnp.take_along_axis(x, idx, axis=-1)
    out = jnp.zeros_like(x)
    out = out.at[jnp.arange(x.shape[0])[:, None], idx].set(kept)
    return out, vals


@jnp.vectorize
def bucket(n):
    return jnp.piecewise(n, [n < 0, (n >= 0) & (n < 10), n >= 10], [-1, lambda v: v // 2, 5])


def cosine_rows(a, b):
    return jnp.vectorize(
        lambda u, v: jnp.dot(u, v) / (jnp.linalg.norm(u) * jnp.linalg.norm(v)),
        signature="(n),(n)->()",
    )(a, b)


def run(x, ints):
    rows, cols, vals, coords, count = compact(x, 1.0, 8)
    sparse, top = topk_sparsify(x, 2)
    flat = jnp.flatnonzero(ints > 3, size=4, fill_value=ints.shape[0])
    return rows, cols, vals, coords, count, sparse, top, bucket(ints), cosine_rows(x, sparse), flat


def inputs(rng):
    return (
        rng.standard_normal((4, 5)).astype("float32"),
        rng.integers(-5, 20, 9).astype("int32"),
    )
