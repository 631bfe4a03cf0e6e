"""Spectral clustering and embedding: an RBF affinity, the symmetric normalised graph
Laplacian, jnp.linalg.eigh for the smallest eigenvectors (sign-fixed), row
normalisation, k-means assignment in lax.fori_loop, and jnp.histogram / digitize of
the Fiedler vector."""

import jax.numpy as jnp
from jax import lax


def affinity(x, sigma=1.0):
    d2 = jnp.sum((x[:, None] - x[None]) ** 2, -1)
    a = jnp.exp(-d2 / (2 * sigma**2))
    return a * (1 - jnp.eye(x.shape[0], dtype=a.dtype))


def normalized_laplacian(a):
    deg = a.sum(axis=1)
    d_inv_sqrt = jnp.where(deg > 0, 1.0 / jnp.sqrt(deg), 0.0)
    return jnp.eye(a.shape[0]) - d_inv_sqrt[:, None] * a * d_inv_sqrt[None, :]


def kmeans_assign(emb, k, iters=10):
    centers = emb[:k]

    def body(_, centers):
        d = jnp.sum((emb[:, None] - centers[None]) ** 2, -1)
        labels = jnp.argmin(d, axis=1)
        onehot = (labels[:, None] == jnp.arange(k)[None]).astype(emb.dtype)
        counts = onehot.sum(0)
        return jnp.where(
            counts[:, None] > 0, onehot.T @ emb / jnp.maximum(counts, 1)[:, None], centers
        )

    centers = lax.fori_loop(0, iters, body, centers)
    return jnp.argmin(jnp.sum((emb[:, None] - centers[None]) ** 2, -1), axis=1)


def run(x):
    lap = normalized_laplacian(affinity(x))
    evals, evecs = jnp.linalg.eigh(lap)
    emb = evecs[:, :2]
    emb = emb * jnp.sign(emb[jnp.argmax(jnp.abs(emb), axis=0), jnp.arange(2)])
    emb = emb / jnp.linalg.norm(emb, axis=1, keepdims=True)
    labels = kmeans_assign(emb, 2)
    fiedler = evecs[:, 1] * jnp.sign(evecs[jnp.argmax(jnp.abs(evecs[:, 1])), 1])
    counts, edges = jnp.histogram(fiedler, bins=4)
    bins = jnp.digitize(fiedler, edges[1:-1])
    return evals, jnp.abs(evecs[:, 1]), labels == labels[0], counts, edges, bins


def inputs(rng):
    a = rng.standard_normal((5, 2)) * 0.3
    b = rng.standard_normal((5, 2)) * 0.3 + 3.0
    return (jnp.asarray(jnp.concatenate([a, b]).astype("float32")),)
