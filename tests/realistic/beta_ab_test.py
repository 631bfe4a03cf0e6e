"""A Bayesian A/B test with Beta-Binomial conjugacy: the posterior probability that B beats
A by betainc on a grid against stats.beta.logpdf, and the marginal likelihood via betaln
and comb on integer counts."""

import jax.numpy as jnp
import jax.scipy.stats as stats
from jax.scipy.special import betainc, betaln, comb


def posterior(successes, trials, a0=1.0, b0=1.0):
    return a0 + successes, b0 + trials - successes


def prob_b_beats_a(a, b, grid=16):
    x = (jnp.arange(grid) + 0.5) / grid
    dens_b = jnp.exp(stats.beta.logpdf(x, a[1], b[1]))
    return jnp.sum(dens_b * betainc(a[0], b[0], x)) / grid


def run(successes, trials):
    a, b = posterior(successes, trials)
    exact = prob_b_beats_a(a, b)
    log_marginal = jnp.log(comb(trials, successes)) + betaln(a, b) - betaln(1.0, 1.0)
    interval = betainc(a, b, 0.5), betainc(2, 3, 0.25)
    return exact, log_marginal, interval


def inputs(rng):
    return jnp.array([12, 19], dtype=jnp.int32), jnp.array([100, 110], dtype=jnp.int32)
