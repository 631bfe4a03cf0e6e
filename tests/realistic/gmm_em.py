"""Expectation-maximisation for a Gaussian mixture with full covariances: Cholesky
factors, solve_triangular for Mahalanobis distances, log-determinants from the factor's
diagonal, responsibilities with logsumexp, a fixed number of EM steps in fori_loop."""

import jax.numpy as jnp
from jax import lax
from jax.scipy.linalg import cho_factor, cho_solve, solve_triangular
from jax.scipy.special import logsumexp


def log_gaussian(x, mean, cov):
    d = x.shape[-1]
    L = jnp.linalg.cholesky(cov)
    z = solve_triangular(L, (x - mean).T, lower=True)
    maha = jnp.sum(z**2, axis=0)
    logdet = 2.0 * jnp.sum(jnp.log(jnp.diagonal(L)))
    return -0.5 * (d * jnp.log(2.0 * jnp.pi) + logdet + maha)


def e_step(x, weights, means, covs):
    log_probs = jnp.stack(
        [log_gaussian(x, means[k], covs[k]) for k in range(means.shape[0])], axis=1
    )
    log_joint = log_probs + jnp.log(weights)
    log_norm = logsumexp(log_joint, axis=1, keepdims=True)
    return jnp.exp(log_joint - log_norm), jnp.sum(log_norm)


def m_step(x, resp, reg=1e-3):
    n, d = x.shape
    nk = resp.sum(axis=0) + 10 * jnp.finfo(resp.dtype).eps
    weights = nk / n  # expect: carry-change
    means = (resp.T @ x) / nk[:, None]
    diff = x[None, :, :] - means[:, None, :]
    covs = jnp.einsum("nk,kni,knj->kij", resp, diff, diff) / nk[:, None, None]
    covs = covs + reg * jnp.eye(d, dtype=x.dtype)[None]
    return weights, means, covs


def run(x, init_means, n_iter=8):
    k, d = init_means.shape
    weights = jnp.full((k,), 1.0 / k)
    covs = jnp.tile(jnp.eye(d, dtype=x.dtype), (k, 1, 1))

    def body(i, state):
        weights, means, covs, _ = state
        resp, ll = e_step(x, weights, means, covs)
        weights, means, covs = m_step(x, resp)
        return weights, means, covs, ll

    init = (weights, init_means, covs, jnp.zeros((), x.dtype))
    weights, means, covs, ll = lax.fori_loop(0, n_iter, body, init)
    # whitening of the data under the first component, via cho_solve
    c, low = cho_factor(covs[0], lower=True)
    whitened = cho_solve((c, low), (x - means[0]).T).T
    labels = jnp.argmax(e_step(x, weights, means, covs)[0], axis=1)
    return weights, means, covs, ll, whitened, jnp.bincount(labels, length=k)


def inputs(rng):
    a = rng.standard_normal((20, 2)) * 0.5 + jnp.array([2.0, 0.0])
    b = rng.standard_normal((20, 2)) * 0.7 - jnp.array([2.0, 1.0])
    x = jnp.concatenate([a, b]).astype("float32")
    return x, jnp.asarray(x[jnp.array([0, 25])])
