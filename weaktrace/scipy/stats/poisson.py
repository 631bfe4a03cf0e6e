"""``weaktrace.scipy.stats.poisson``: the jax.scipy.stats.poisson mirror (logpmf,
pmf, cdf; entropy is not built yet)."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy import special
from weaktrace.scipy.stats._common import const, inexact, registry

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
