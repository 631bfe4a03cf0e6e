"""``weaktrace.scipy.stats.beta``: the jax.scipy.stats.beta mirror."""

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
def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.beta.logpdf``: (a - 1) log y + (b - 1) log1p(-y) - betaln(a, b)
    - log scale; -inf outside [loc, loc + scale], NaN for non-positive a, b, scale."""
    x, a, b, loc, scale = inexact("beta.logpdf", x, a, b, loc, scale)
    one, zero = const(x, 1), const(a, 0)
    y = lax.div(lax.sub(x, loc), scale)
    linear = lax.add(
        special.xlogy(lax.sub(a, one), y), special.xlog1py(lax.sub(b, one), lax.neg(y))
    )
    log_probs = lax.sub(lax.add(lax.neg(special.betaln(a, b)), linear), lax.log(scale))
    outside = wnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    result = wnp.where(outside, -np.inf, log_probs)
    bad = wnp.logical_or(wnp.logical_or(lax.le(a, zero), lax.le(b, zero)), lax.le(scale, zero))
    return wnp.where(bad, np.nan, result)


@export
def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.beta.pdf``."""
    return lax.exp(logpdf(x, a, b, loc, scale))


def _unit(x: Any, loc: Any, scale: Any) -> Any:
    return lax.clamp(const(x, 0), lax.div(lax.sub(x, loc), scale), const(x, 1))


@export
def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.beta.cdf``: betainc(a, b, y), y clamped to [0, 1]."""
    x, a, b, loc, scale = inexact("beta.cdf", x, a, b, loc, scale)
    return special.betainc(a, b, _unit(x, loc, scale))


@export
def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.beta.logcdf``."""
    return lax.log(cdf(x, a, b, loc, scale))


@export
def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.beta.sf``: betainc(b, a, 1 - y)."""
    x, a, b, loc, scale = inexact("beta.sf", x, a, b, loc, scale)
    return special.betainc(b, a, 1 - _unit(x, loc, scale))


@export
def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.beta.logsf``."""
    return lax.log(sf(x, a, b, loc, scale))
