"""``weaktrace.scipy.stats.expon``: the jax.scipy.stats.expon mirror."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy.stats._common import inexact, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


@export
def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.expon.logpdf``: -(x - loc) / scale - log scale; -inf below loc."""
    x, loc, scale = inexact("expon.logpdf", x, loc, scale)
    log_probs = lax.neg(lax.add(lax.div(lax.sub(x, loc), scale), lax.log(scale)))
    return wnp.where(lax.lt(x, loc), -np.inf, log_probs)


@export
def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.expon.pdf``."""
    return lax.exp(logpdf(x, loc, scale))


@export
def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.expon.cdf``: -expm1(-(x - loc) / scale); 0 below loc."""
    x, loc, scale = inexact("expon.cdf", x, loc, scale)
    t = lax.div(lax.sub(loc, x), scale)
    return wnp.where(lax.lt(x, loc), wnp.zeros_like(t), lax.neg(lax.expm1(t)))


@export
def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.expon.logsf``: -(x - loc) / scale; 0 below loc."""
    x, loc, scale = inexact("expon.sf", x, loc, scale)
    t = lax.div(lax.sub(loc, x), scale)
    return wnp.where(lax.lt(x, loc), wnp.zeros_like(t), t)


@export
def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.expon.sf``."""
    return lax.exp(logsf(x, loc, scale))


@export
def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.expon.logcdf``: log1p(-sf)."""
    return lax.log1p(lax.neg(sf(x, loc, scale)))


@export
def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.expon.ppf``: loc - scale log1p(-q); NaN outside [0, 1]."""
    q, loc, scale = inexact("expon.ppf", q, loc, scale)
    bad = wnp.isnan(q) | (q < 0) | (q > 1)
    return wnp.where(bad, np.nan, lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))
