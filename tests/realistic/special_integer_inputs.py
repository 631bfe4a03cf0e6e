"""Count-data likelihoods written the way statisticians write them: jax.scipy.special
functions fed integer counts and Python scalars (gammaln on int32, xlogy / xlog1py with
int arguments, betaln, digamma, polygamma with an int order, gammainc for a Poisson CDF),
negative-binomial and beta-binomial log-likelihoods, and entropy terms."""

import jax.numpy as jnp
from jax.scipy import special


def poisson_loglik(k, rate):
    return special.xlogy(k, rate) - rate - special.gammaln(k + 1)


def negbin_loglik(k, r, p):
    return (
        special.gammaln(k + r)
        - special.gammaln(k + 1)
        - special.gammaln(r)
        + r * jnp.log1p(-p)
        + special.xlogy(k, p)
    )


def betabinom_loglik(k, n, a, b):
    log_choose = special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
    return log_choose + special.betaln(k + a, n - k + b) - special.betaln(a, b)


def run(counts, n_trials, rate):
    pois = poisson_loglik(counts, rate)
    nb = negbin_loglik(counts, 2.5, 0.3)
    bb = betabinom_loglik(counts, n_trials, 2, 3)
    cdf = special.gammaincc(counts + 1, rate)
    lower = special.gammainc(3, rate)
    psi = special.digamma(counts + 1)
    trig = special.polygamma(1, counts + 1)
    ent = special.entr(counts / counts.sum())
    kl = special.rel_entr(counts / counts.sum(), 1.0 / counts.size)
    fact = special.factorial(counts)
    logit = special.logit(special.expit(counts - 2))
    erfs = (
        special.erf(counts),
        special.erfc(2),
        special.ndtr(counts * 0.5),
        special.log_ndtr(-counts / 2),
    )
    bessel = special.i0e(counts), special.i1e(counts)
    lmg = special.multigammaln(counts + 3.0, 2)
    x1 = special.xlog1py(counts, 0.5)
    return pois.sum(), nb, bb, cdf, lower, psi, trig, ent, kl, fact, logit, erfs, bessel, lmg, x1


def inputs(rng):
    counts = jnp.asarray(rng.poisson(3.0, size=(6,)), dtype=jnp.int32)
    return counts, jnp.int32(9), 2.5
