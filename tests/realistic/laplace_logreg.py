"""Bayesian logistic regression by a Laplace approximation: a Gaussian prior and a
Bernoulli likelihood from jax.scipy.stats, Newton steps with jax.hessian, the evidence
from jnp.linalg.slogdet, and the Gaussian posterior's stats.multivariate_normal.logpdf."""

import jax
import jax.numpy as jnp
import jax.scipy.stats as stats
from jax import lax, nn


def log_joint(w, x, y, prior_scale):
    prior = jnp.sum(stats.norm.logpdf(w, 0.0, prior_scale))
    p = nn.sigmoid(x @ w)
    return prior + jnp.sum(stats.bernoulli.logpmf(y, p))


def newton(w, x, y, prior_scale, steps=4):
    def body(_, w):
        g = jax.grad(log_joint)(w, x, y, prior_scale)
        h = jax.hessian(log_joint)(w, x, y, prior_scale)
        return w - jnp.linalg.solve(h, g)

    return lax.fori_loop(0, steps, body, w)


def run(x, y):
    d = x.shape[1]
    w_map = newton(jnp.zeros(d), x, y, 2.0)
    precision = -jax.hessian(log_joint)(w_map, x, y, 2.0)
    sign, logdet = jnp.linalg.slogdet(precision)
    evidence = log_joint(w_map, x, y, 2.0) + 0.5 * d * jnp.log(2 * jnp.pi) - 0.5 * logdet
    cov = jnp.linalg.inv(precision)
    cov = 0.5 * (cov + cov.T)
    scores = stats.multivariate_normal.logpdf(x[:4], w_map, cov)
    pred = nn.sigmoid(x @ w_map)
    return (
        w_map,
        sign,
        evidence,
        scores,
        pred,
        stats.norm.cdf(w_map / jnp.sqrt(jnp.diag(cov))),
    )


def inputs(rng):
    x = rng.standard_normal((12, 3)).astype("float32")
    y = (x @ [1.0, -2.0, 0.5] + rng.standard_normal(12) > 0).astype("int32")
    return x, y
