"""``weaktrace.scipy.stats.laplace``: the jax.scipy.stats.laplace mirror."""

from __future__ import annotations

from typing import Any

from weaktrace import lax as _lax
from weaktrace.scipy.stats._common import const, inexact, registry

lax: Any = _lax

EXPORTS, export = registry()


@export
def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.laplace.logpdf``: -|x - loc| / scale - log(2 scale)."""
    x, loc, scale = inexact("laplace.logpdf", x, loc, scale)
    linear = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear, lax.log(lax.mul(const(x, 2), scale))))


@export
def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.laplace.pdf``."""
    return lax.exp(logpdf(x, loc, scale))


@export
def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.laplace.cdf``: exp(d) / 2 for d <= 0, 1 - exp(-d) / 2 above."""
    x, loc, scale = inexact("laplace.cdf", x, loc, scale)
    half, one = const(x, 0.5), const(x, 1)
    d = lax.div(lax.sub(x, loc), scale)
    low = lax.mul(half, lax.exp(d))
    high = lax.sub(one, lax.mul(half, lax.exp(lax.neg(d))))
    return lax.select(lax.le(d, const(x, 0)), low, high)
