"""``weaktrace.scipy.stats.bernoulli``: the jax.scipy.stats.bernoulli mirror."""

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
def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.bernoulli.logpmf``: xlogy(k, p) + xlog1py(1 - k, -p) on {0, 1}."""
    k, p, loc = inexact("bernoulli.logpmf", k, p, loc)
    zero, one = const(k, 0), const(k, 1)
    x = lax.sub(k, loc)
    log_probs = special.xlogy(x, p) + special.xlog1py(lax.sub(one, x), -p)
    outside = wnp.logical_or(lax.lt(x, zero), lax.gt(x, one))
    return wnp.where(outside, -np.inf, log_probs)


@export
def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.bernoulli.pmf``."""
    return wnp.exp(logpmf(k, p, loc))


@export
def cdf(k: Any, p: Any) -> Any:
    """``jax.scipy.stats.bernoulli.cdf``: 0 below 0, 1 - p on [0, 1), 1 above; NaN for
    a NaN operand or p outside [0, 1]."""
    k, p = inexact("bernoulli.cdf", k, p)
    zero, one = const(k, 0), const(k, 1)
    bad = wnp.isnan(k) | wnp.isnan(p) | (p < zero) | (p > one)
    conds = [bad, lax.lt(k, zero), wnp.logical_and(lax.ge(k, zero), lax.lt(k, one)), lax.ge(k, one)]
    return wnp.select(conds, [np.nan, zero, one - p, one])


@export
def ppf(q: Any, p: Any) -> Any:
    """``jax.scipy.stats.bernoulli.ppf``: 0 for q <= 1 - p, else 1; NaN outside."""
    q, p = inexact("bernoulli.ppf", q, p)
    zero, one = const(q, 0), const(q, 1)
    bad = wnp.isnan(q) | wnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one)
    return wnp.where(bad, np.nan, wnp.where(lax.le(q, one - p), zero, one))
