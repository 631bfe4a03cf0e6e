"""A Bayesian A/B test with Beta-Binomial conjugacy: the posterior probability that B beats
A by betainc on a grid, Monte Carlo with random.beta, stats.beta.logpdf/cdf, the marginal
likelihood via betaln and comb, stats.binom/betabinom logpmf on integer counts."""

import jax.numpy as jnp
import jax.scipy.stats as stats
from jax import random
from jax.scipy.special import betainc, betaln, comb


def posterior(successes, trials, a0=1.0, b0=1.0):
    return a0 + successes, b0 + trials - successes


def prob_b_beats_a(a, b, grid=64):
    x = (jnp.arange(grid) + 0.5) / grid
    dens_b = jnp.exp(stats.beta.logpdf(x, a[1], b[1]))
    return jnp.sum(dens_b * betainc(a[0], b[0], x)) / grid


def run(seed, successes, trials):
    a, b = posterior(successes, trials)
    exact = prob_b_beats_a(a, b)
    draws = random.beta(random.key(seed), a, b, (200, 2))
    mc = jnp.mean(draws[:, 1] > draws[:, 0])
    log_marginal = jnp.log(comb(trials, successes)) + betaln(a, b) - betaln(1.0, 1.0)
    lik = stats.binom.logpmf(successes, trials, a / (a + b))
    pred = stats.betabinom.logpmf(jnp.arange(4), 3, a[:, None], b[:, None])
    cdf = stats.beta.cdf(jnp.array([0.1, 0.2]), a, b)
    interval = betainc(a, b, 0.5), betainc(2, 3, 0.25)
    return exact, mc, draws.mean(0), log_marginal, lik, pred, cdf, interval


def inputs(rng):
    return 4, jnp.array([12, 19], dtype=jnp.int32), jnp.array([100, 110], dtype=jnp.int32)
