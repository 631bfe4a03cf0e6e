"""Densities with signed weights in log space: a difference of Gaussian mixtures through
logsumexp(b=, return_sign=True), a masked logsumexp with where=, per-row signs with
axis=/keepdims=, and the gradient of the log of |mixture| with respect to its means."""

import jax
import jax.numpy as jnp
import jax.scipy.stats as stats
from jax.scipy.special import logsumexp


def log_components(x, means, scales):
    return stats.norm.logpdf(x[:, None], means[None, :], scales[None, :])


def signed_log_density(means, x, scales, weights):
    comps = log_components(x, means, scales)
    return logsumexp(comps, axis=1, b=weights, return_sign=True)


def run(x, means, scales, weights):
    logp, sign = signed_log_density(means, x, scales, weights)
    positive = logsumexp(log_components(x, means, scales), axis=1, b=jnp.abs(weights))
    masked = logsumexp(
        log_components(x, means, scales), axis=1, where=weights[None, :] > 0, keepdims=True
    )
    grid = log_components(x, means, scales).reshape(2, -1)
    row, row_sign = logsumexp(
        grid,
        axis=-1,
        b=jnp.tile(weights, grid.shape[1] // 3 * 2)[: grid.shape[1]],
        keepdims=True,
        return_sign=True,
    )
    scalar = logsumexp(jnp.arange(4), b=2)
    grads = jax.grad(lambda m: jnp.sum(signed_log_density(m, x, scales, weights)[0]))(means)
    return logp, sign, positive, masked, row, row_sign, scalar, grads


def inputs(rng):
    x = jnp.asarray(rng.uniform(-2.0, 2.0, 6).astype("float32"))
    means = jnp.array([-1.0, 0.0, 1.0])
    scales = jnp.array([0.5, 1.5, 0.5])
    return x, means, scales, jnp.array([1.0, -0.4, 0.8])
