"""``weaktrace.scipy.stats.poisson``: the jax.scipy.stats.poisson mirror (logpmf,
pmf, cdf, entropy)."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy import special
from weaktrace.scipy.stats._common import const, inexact, inexact_dtypes, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


@export
def logpmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.poisson.logpmf``: x log mu - log x! - mu, x = k - loc; -inf
    for negative or non-integer k."""
    k, mu, loc = inexact("poisson.logpmf", k, mu, loc)
    x = lax.sub(k, loc)
    log_probs = special.xlogy(x, mu) - special.gammaln(x + 1) - mu
    bad = wnp.logical_or(lax.lt(x, const(k, 0)), lax.ne(wnp.round(k), k))
    return wnp.where(bad, -np.inf, log_probs)


@export
def pmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.poisson.pmf``."""
    return wnp.exp(logpmf(k, mu, loc))


@export
def cdf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.poisson.cdf``: gammaincc(floor(x + 1), mu), 0 below loc."""
    k, mu, loc = inexact("poisson.cdf", k, mu, loc)
    x = lax.sub(k, loc)
    zero = const(k, 0)
    return wnp.where(lax.lt(x, zero), zero, special.gammaincc(wnp.floor(1 + x), mu))


def _entropy_sum(mu: Any, terms: int, upper: Any) -> Any:
    """-sum p log p over k < min(terms, upper) for each mu (a 1-d mu)."""
    k = wnp.arange(terms, dtype=mu.dtype)[:, None]
    probs = wnp.where(k < wnp.ceil(upper).astype(k.dtype)[None, :], pmf(k, mu, 0), 0.0)
    return wnp.sum(special.entr(probs), axis=0)


@export
def entropy(mu: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.poisson.entropy``: summed over k < mu + 20 (35 terms) for
    mu < 10, over k < mu + 10 sqrt(mu) + 20 (250 terms) for mu < 100, and
    log(2 pi e mu) / 2 - 1 / (12 mu) beyond; loc only broadcasts."""
    mu, loc = inexact_dtypes("poisson.entropy", mu, loc)
    shape = np.broadcast_shapes(mu.shape, loc.shape)
    flat = wnp.ravel(mu)
    small = _entropy_sum(flat, 35, flat + 20)
    medium = _entropy_sum(flat, 250, flat + 10 * wnp.sqrt(flat) + 20)
    large = 0.5 * wnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    by_regime = wnp.where(flat < 10, small, wnp.where(flat < 100, medium, large))
    result = wnp.where(flat == 0, wnp.zeros_like(flat), by_regime)
    return wnp.broadcast_to(wnp.reshape(result, mu.shape), shape)
