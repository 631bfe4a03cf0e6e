"""Bayesian topic-model pieces: variational E-step of LDA (digamma of Dirichlet
parameters, exp-normalised responsibilities in lax.fori_loop), samples from
random.dirichlet / poisson, and jax.scipy.stats log-densities
(dirichlet, gamma, poisson, beta, multivariate_normal) for an ELBO-style score."""

import jax.numpy as jnp
from jax import lax, random
from jax.scipy import stats
from jax.scipy.special import digamma, gammaln, logsumexp


def e_step(counts, log_beta, alpha, iters=20):
    k = log_beta.shape[0]
    gamma0 = alpha + jnp.sum(counts) / k * jnp.ones(k)

    def body(_, gamma):
        e_log_theta = digamma(gamma) - digamma(jnp.sum(gamma))
        log_phi = e_log_theta[:, None] + log_beta
        phi = jnp.exp(log_phi - logsumexp(log_phi, axis=0, keepdims=True))
        return alpha + phi @ counts

    return lax.fori_loop(0, iters, body, gamma0)


def run(key, counts, topic_logits, x):
    log_beta = topic_logits - logsumexp(topic_logits, axis=1, keepdims=True)
    gamma = e_step(counts, log_beta, 0.1)
    k1, k2 = random.split(key)
    theta = random.dirichlet(k1, gamma)
    rates = theta[:, None] * jnp.array([2.0, 5.0])
    p = jnp.clip(theta, 0.05, 0.95)
    n = random.poisson(k2, 3.0, (5,))
    score = (
        stats.dirichlet.logpdf(theta, gamma)
        + stats.gamma.logpdf(rates, 2.0, scale=0.5).sum()
        + stats.poisson.logpmf(n, 3.0).sum()  # expect: implicit-promotion
        + stats.beta.logpdf(p, 2.0, 3.0).sum()
        + stats.multivariate_normal.logpdf(
            x, jnp.zeros(2), jnp.array([[1.0, 0.3], [0.3, 2.0]])
        ).sum()
    )
    lbeta = gammaln(gamma).sum() - gammaln(gamma.sum())
    return gamma, theta, rates, p, n, score, lbeta


def inputs(rng):
    return (
        random.PRNGKey(9),
        rng.integers(0, 5, 7).astype("float32"),
        rng.standard_normal((3, 7)).astype("float32"),
        rng.standard_normal((4, 2)).astype("float32"),
    )
