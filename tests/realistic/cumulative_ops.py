"""Time-series feature extraction: running totals with jnp.cumsum(dtype=) on int16 counts,
cumprod of returns, nancumsum over gaps, jnp.cumulative_sum with include_initial, lax.cummin /
cummax / cumsum with reverse=, drawdowns, and diff with prepend / append."""

import jax.numpy as jnp
from jax import lax


def drawdown(prices):
    peak = lax.cummax(prices, axis=0)
    return (prices - peak) / peak


def run(returns, counts, gappy):
    growth = jnp.cumprod(1.0 + returns, axis=0)
    dd = drawdown(growth)
    totals16 = jnp.cumsum(counts, axis=0)
    totals32 = jnp.cumsum(counts, axis=0, dtype=jnp.int32)
    filled = jnp.nancumsum(gappy)
    prod_nan = jnp.nancumprod(1.0 + 0.1 * gappy)
    with_zero = jnp.cumulative_sum(counts, axis=0, include_initial=True)
    cprod = jnp.cumulative_prod(returns + 1.0, axis=1, include_initial=True)
    remaining = lax.cumsum(counts.astype(jnp.int32), axis=0, reverse=True)
    worst_to_come = lax.cummin(returns, axis=0, reverse=True)
    log_wealth = lax.cumlogsumexp(returns, axis=0)
    steps = jnp.diff(growth, axis=0, prepend=1.0)
    changes = jnp.diff(counts, n=2, axis=0, append=jnp.zeros((1, counts.shape[1]), counts.dtype))
    ed = jnp.ediff1d(growth[:, 0], to_begin=0.0)
    return (
        growth,
        dd,
        totals16,
        totals32,
        filled,
        prod_nan,
        with_zero,
        cprod,
        remaining,
        worst_to_come,
        log_wealth,
        steps,
        changes,
        ed,
        lax.cumprod(returns, axis=1),
    )


def inputs(rng):
    returns = (0.02 * rng.standard_normal((7, 3))).astype("float32")
    counts = jnp.asarray(rng.integers(0, 300, size=(7, 3)), dtype=jnp.int16)
    gappy = rng.standard_normal((9,)).astype("float32")
    gappy[[2, 5]] = float("nan")
    return returns, counts, gappy
