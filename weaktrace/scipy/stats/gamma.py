"""``weaktrace.scipy.stats.gamma``: the jax.scipy.stats.gamma mirror."""

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
def logpdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gamma.logpdf``: (a - 1) log y - y - lgamma(a) - log scale,
    y = (x - loc) / scale; -inf below loc."""
    x, a, loc, scale = inexact("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = const(x, 1)
    y = wnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
    linear = lax.sub(special.xlogy(lax.sub(a, one), y), y)
    log_probs = lax.sub(linear, lax.add(special.gammaln(a), lax.log(scale)))
    return wnp.where(ok, log_probs, -np.inf)


@export
def pdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gamma.pdf``."""
    return lax.exp(logpdf(x, a, loc, scale))


@export
def cdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gamma.cdf``: gammainc(a, y) with y clamped to [0, inf]."""
    x, a, loc, scale = inexact("gamma.cdf", x, a, loc, scale)
    y = lax.clamp(const(x, 0), lax.div(lax.sub(x, loc), scale), const(x, np.inf))
    return special.gammainc(a, y)


@export
def logcdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gamma.logcdf``."""
    return lax.log(cdf(x, a, loc, scale))


@export
def sf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gamma.sf``: gammaincc(a, y), 1 below loc."""
    x, a, loc, scale = inexact("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return wnp.where(lax.lt(y, const(y, 0)), 1, special.gammaincc(a, y))


@export
def logsf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gamma.logsf``."""
    return lax.log(sf(x, a, loc, scale))
