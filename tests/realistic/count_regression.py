"""Poisson and negative-binomial regression on integer counts: the log-likelihood by hand
(gammaln, xlogy on int arrays) checked against jax.scipy.stats poisson/nbinom logpmf, tail
probabilities with gammaincc, factorial and comb on ints, and a few gradient steps."""

import jax
import jax.numpy as jnp
import jax.scipy.stats as stats
from jax import lax
from jax.scipy.special import comb, factorial, gammainc, gammaincc, gammaln, xlogy


def poisson_nll(w, x, k):
    rate = jnp.exp(x @ w)
    return -jnp.mean(xlogy(k.astype(rate.dtype), rate) - rate - gammaln(k + 1))


def nbinom_nll(params, x, k):
    w, log_r = params
    r = jnp.exp(log_r)
    mu = jnp.exp(x @ w)
    p = r / (r + mu)
    ll = (
        gammaln(k + r) - gammaln(r) - gammaln(k + 1) + xlogy(r, p) + xlogy(k.astype(p.dtype), 1 - p)
    )
    return -jnp.mean(ll)


def fit(loss, params, x, k, steps=5, lr=0.1):
    def body(_, p):
        g = jax.grad(loss)(p, x, k)
        return jax.tree_util.tree_map(lambda a, b: a - lr * b, p, g)

    return lax.fori_loop(0, steps, body, params)


def run(x, k):
    w = fit(poisson_nll, jnp.zeros(x.shape[1]), x, k)
    rate = jnp.exp(x @ w)
    check = stats.poisson.logpmf(k, rate)
    tail = gammaincc(k + 1, rate)  # P(K <= k) for a Poisson(rate)
    head = gammainc(k, rate)
    nb = fit(nbinom_nll, (jnp.zeros(x.shape[1]), jnp.float32(0.0)), x, k)
    mu = jnp.exp(x @ nb[0])
    r = jnp.exp(nb[1])
    nb_check = stats.nbinom.logpmf(k, r, r / (r + mu))
    ways = comb(k + 2, 2)
    ints = xlogy(k, k + 1)
    fact = factorial(k)
    exact = factorial(k, exact=False)
    total = jnp.sum(k) + gammaln(3)
    return (
        w,
        ints,
        check,
        tail,
        head,
        nb,
        nb_check,
        ways,
        fact,
        exact,
        total,
        stats.poisson.cdf(k, 2.0),
    )


def inputs(rng):
    x = jnp.asarray(rng.standard_normal((10, 2)).astype("float32"))
    k = jnp.asarray(rng.poisson(2.0, 10).astype("int32"))
    return x, k
