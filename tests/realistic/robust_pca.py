"""Robust PCA by principal component pursuit: singular-value thresholding with
jnp.linalg.svd(full_matrices=False), elementwise shrinkage for the sparse part, the
augmented-Lagrangian loop in lax.while_loop with a relative-error tolerance, and
summary quantities (nuclear norm via norm(ord="nuc"), matrix_rank, QR of the low-rank
part, pinv)."""

import jax.numpy as jnp
from jax import lax


def shrink(x, tau):
    return jnp.sign(x) * jnp.maximum(jnp.abs(x) - tau, 0.0)


def svt(x, tau):
    u, s, vt = jnp.linalg.svd(x, full_matrices=False)
    return (u * shrink(s, tau)) @ vt


def pcp(m, max_iter=60, tol=1e-5):
    n1, n2 = m.shape
    lam = 1.0 / jnp.sqrt(jnp.maximum(n1, n2))
    mu = n1 * n2 / (4.0 * jnp.sum(jnp.abs(m)))
    norm_m = jnp.linalg.norm(m)

    def cond(state):
        i, _, _, _, err = state
        return (i < max_iter) & (err > tol)

    def body(state):
        i, low, sparse, y, _ = state
        low = svt(m - sparse + y / mu, 1.0 / mu)
        sparse = shrink(m - low + y / mu, lam / mu)
        resid = m - low - sparse
        y = y + mu * resid
        return i + 1, low, sparse, y, jnp.linalg.norm(resid) / norm_m

    zeros = jnp.zeros_like(m)
    init = (0, zeros, zeros, zeros, jnp.array(jnp.inf, m.dtype))
    return lax.while_loop(cond, body, init)


def run(m):
    n, low, sparse, _, err = pcp(m)
    q, r = jnp.linalg.qr(low)
    return (
        n,
        low,
        sparse,
        err,
        jnp.linalg.norm(low, ord="nuc"),
        jnp.linalg.matrix_rank(low, tol=1e-3),
        jnp.abs(jnp.diag(r)),
        jnp.linalg.pinv(low, rtol=1e-3) @ m,
        jnp.abs(q).sum(),
    )


def inputs(rng):
    u = rng.standard_normal((8, 2))
    v = rng.standard_normal((2, 6))
    spikes = (rng.uniform(size=(8, 6)) < 0.1) * 5.0
    return ((u @ v + spikes).astype("float32"),)
