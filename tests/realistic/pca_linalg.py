"""Classical linear algebra pipelines: PCA by SVD with sign fixing, whitening by eigh,
ridge regression by lstsq and by solve, QR-based orthonormalisation, pseudo-inverse,
condition numbers, matrix powers and norms of several orders."""

import jax.numpy as jnp


def pca(x, k):
    xc = x - x.mean(axis=0)
    _, s, vt = jnp.linalg.svd(xc, full_matrices=False)
    signs = jnp.sign(vt[jnp.arange(vt.shape[0]), jnp.argmax(jnp.abs(vt), axis=1)])
    vt = vt * signs[:, None]
    explained = s**2 / jnp.sum(s**2)
    return xc @ vt[:k].T, explained[:k], vt[:k]


def zca_whiten(x, eps=1e-5):
    xc = x - x.mean(axis=0, keepdims=True)
    cov = xc.T @ xc / (x.shape[0] - 1)
    evals, evecs = jnp.linalg.eigh(cov)
    W = evecs @ jnp.diag(1.0 / jnp.sqrt(evals + eps)) @ evecs.T
    return xc @ W, evals


def ridge(x, y, lam):
    d = x.shape[1]
    w_solve = jnp.linalg.solve(x.T @ x + lam * jnp.eye(d), x.T @ y)
    aug_x = jnp.concatenate([x, jnp.sqrt(lam) * jnp.eye(d)], axis=0)
    aug_y = jnp.concatenate([y, jnp.zeros((d, *y.shape[1:]))], axis=0)
    w_lstsq, _, rank, _ = jnp.linalg.lstsq(aug_x, aug_y, rcond=None)
    return w_solve, w_lstsq, rank


def run(x, y):
    proj, explained, comps = pca(x, 2)
    white, evals = zca_whiten(x)
    w_solve, w_lstsq, rank = ridge(x, y, 0.1)
    q, r = jnp.linalg.qr(x)
    pinv = jnp.linalg.pinv(x)
    cond = jnp.linalg.cond(x.T @ x)
    m = jnp.array([[0.9, 0.1], [0.2, 0.8]], dtype=x.dtype)
    stationary = jnp.linalg.matrix_power(m, 16)[0]
    norms = (
        jnp.linalg.norm(x),
        jnp.linalg.norm(x, ord=2),
        jnp.linalg.norm(x, ord="nuc"),
        jnp.linalg.norm(x, ord=jnp.inf),
        jnp.linalg.norm(x[0], ord=1),
    )
    sign, logdet = jnp.linalg.slogdet(x.T @ x)
    return (
        proj,
        explained,
        comps,
        white,
        evals,
        w_solve,
        w_lstsq,
        rank,
        jnp.abs(jnp.diag(r)),
        q.shape,
        pinv @ x,
        cond,
        stationary,
        norms,
        sign * logdet,
        jnp.linalg.det(x[:3, :3]),
        jnp.linalg.matrix_rank(x),
        jnp.trace(jnp.linalg.inv(x.T @ x)),
    )


def inputs(rng):
    x = rng.standard_normal((12, 4)).astype("float32")
    x[:, 3] = x[:, 0] * 0.5 + 0.1 * x[:, 3]
    y = (x @ jnp.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.standard_normal(12)).astype("float32")
    return x, y
