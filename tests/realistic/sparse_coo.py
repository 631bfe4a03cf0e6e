"""Sparse matrices by hand (COO / CSR as GNN and recsys code keeps them): sparse
mat-vec with segment_sum, row-wise softmax over nonzeros with segment_max, CSR row
pointers from cumsum/searchsorted, degree normalisation and an embedding-bag lookup."""

import jax.numpy as jnp
from jax import lax, ops


def coo_matvec(rows, cols, vals, x, n_rows):
    return ops.segment_sum(vals * x[cols], rows, num_segments=n_rows)


def segment_softmax(logits, segment_ids, num_segments):
    maxes = ops.segment_max(logits, segment_ids, num_segments)
    shifted = logits - maxes[segment_ids]
    exp = jnp.exp(shifted)
    denom = ops.segment_sum(exp, segment_ids, num_segments)
    return exp / denom[segment_ids]


def csr_from_coo(rows, n_rows):
    counts = jnp.bincount(rows, length=n_rows)
    indptr = jnp.concatenate([jnp.zeros(1, counts.dtype), jnp.cumsum(counts)])
    # row of each nonzero recovered from the pointers
    row_of = jnp.searchsorted(indptr, jnp.arange(rows.shape[0]), side="right") - 1
    return indptr, row_of


def sym_normalize(rows, cols, vals, n):
    deg = ops.segment_sum(vals, rows, num_segments=n)
    inv_sqrt = jnp.where(deg > 0, lax.rsqrt(jnp.maximum(deg, 1e-12)), 0.0)
    return vals * inv_sqrt[rows] * inv_sqrt[cols]


def embedding_bag(table, ids, bag_ids, n_bags, mode="mean"):
    emb = table[ids]
    total = ops.segment_sum(emb, bag_ids, num_segments=n_bags)
    if mode == "sum":
        return total
    counts = ops.segment_sum(jnp.ones_like(bag_ids), bag_ids, num_segments=n_bags)
    return total / jnp.maximum(counts, 1)[:, None]  # expect: implicit-promotion


def run(rows, cols, vals, x, table, ids, bag_ids):
    n = x.shape[0]
    y = coo_matvec(rows, cols, vals, x, n)
    norm_vals = sym_normalize(rows, cols, vals, n)
    y_norm = coo_matvec(rows, cols, norm_vals, x, n)
    attn = segment_softmax(vals * x[cols], rows, n)
    indptr, row_of = csr_from_coo(rows, n)
    row_min = ops.segment_min(vals, rows, num_segments=n)
    row_prod = ops.segment_prod(1.0 + vals, rows, num_segments=n, indices_are_sorted=True)
    bags = embedding_bag(table, ids, bag_ids, 3)
    bags_sum = embedding_bag(table, ids, bag_ids, 3, mode="sum")
    return y, y_norm, attn, indptr, row_of, row_min, row_prod, bags, bags_sum


def inputs(rng):
    n, nnz = 6, 14
    rows = jnp.sort(jnp.asarray(rng.integers(0, n - 1, nnz), dtype=jnp.int32))
    cols = jnp.asarray(rng.integers(0, n, nnz), dtype=jnp.int32)
    vals = rng.uniform(0.1, 1.0, nnz).astype("float32")
    x = rng.standard_normal(n).astype("float32")
    table = rng.standard_normal((10, 4)).astype("float32")
    ids = jnp.asarray(rng.integers(0, 10, 7), dtype=jnp.int32)
    bag_ids = jnp.asarray([0, 0, 1, 1, 1, 2, 2], dtype=jnp.int32)
    return rows, cols, vals, x, table, ids, bag_ids
