"""Risk metrics for a portfolio of simulated returns: value-at-risk with jnp.quantile under
several method= choices, expected shortfall from a masked mean, jnp.percentile with keepdims
and a vector of q, nanquantile over missing days, the median absolute deviation, and a
histogram with explicit range= and density=."""

import jax.numpy as jnp


def expected_shortfall(returns, var):
    tail = returns <= var
    return jnp.sum(returns * tail, axis=0) / jnp.maximum(jnp.sum(tail, axis=0), 1)


def run(returns, missing):
    qs = jnp.array([0.01, 0.05, 0.5])
    linear = jnp.quantile(returns, qs, axis=0)
    lower = jnp.quantile(returns, 0.05, axis=0, method="lower")
    higher = jnp.quantile(returns, 0.05, axis=0, method="higher")
    nearest = jnp.quantile(returns, 0.05, axis=0, method="nearest")
    midpoint = jnp.quantile(returns, 0.05, axis=0, method="midpoint")
    pct = jnp.percentile(returns, jnp.array([5.0, 95.0]), axis=0, keepdims=True)
    es = expected_shortfall(returns, linear[1])
    gappy = jnp.where(missing, jnp.nan, returns)
    nanq = jnp.nanquantile(gappy, 0.1, axis=0)
    nanpct = jnp.nanpercentile(gappy, 50, axis=0)
    med = jnp.median(returns, axis=0)
    mad = jnp.median(jnp.abs(returns - med), axis=0)
    counts, edges = jnp.histogram(returns[:, 0], bins=5, range=(-0.1, 0.1), density=True)
    int_q = jnp.quantile(jnp.arange(10), 0.3)
    return (
        linear,
        lower,
        higher,
        nearest,
        midpoint,
        pct,
        es,
        nanq,
        nanpct,
        med,
        mad,
        counts,
        edges,
        int_q,
    )


def inputs(rng):
    returns = (0.03 * rng.standard_normal((40, 3))).astype("float32")
    missing = rng.uniform(size=(40, 3)) < 0.1
    return returns, missing
