"""``weaktrace.scipy.stats.truncnorm``: the jax.scipy.stats.truncnorm mirror (the
standard normal truncated to [a, b], then shifted by loc and scaled by scale).

Probability masses are computed in log space as jax does: in the left tail as a
log-difference of log_ndtr (the right tail mirrored onto it), and across the centre as
log1p(-ndtr(a) - ndtr(-b)), which keeps its precision near a mass of 1."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy import special
from weaktrace.scipy.stats import norm
from weaktrace.scipy.stats._common import inexact, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


def _log_sub(x: Any, y: Any) -> Any:
    """log(exp(x) - exp(y)) as a weighted logsumexp over a stacked pair (jax's form)."""
    weights = wnp.array([wnp.ones_like(x), -wnp.ones_like(y)])
    return special.logsumexp(wnp.array([x, y]), b=weights, axis=0)


def _log_mass(a: Any, b: Any) -> Any:
    """log(ndtr(b) - ndtr(a)) for the standard normal, stable in both tails."""
    a, b = wnp.broadcast_arrays(wnp.array(a), wnp.array(b))
    right = a > 0  # in the right tail, mirror the interval onto the left one
    left_or_right = (b <= 0) | right
    lo, hi = wnp.where(right, -b, a), wnp.where(right, -a, b)
    tail = _log_sub(special.log_ndtr(hi), special.log_ndtr(lo))
    central = wnp.log1p(-special.ndtr(a) - special.ndtr(-b))
    return wnp.where(left_or_right, tail, central)


@export
def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.truncnorm.logpdf``: norm.logpdf less the log mass of [a, b];
    -inf outside [a, b], NaN where a >= b."""
    x, a, b, loc, scale = inexact("truncnorm.logpdf", x, a, b, loc, scale)
    value = lax.sub(norm.logpdf(x, loc, scale), _log_mass(a, b))
    z = lax.div(lax.sub(x, loc), scale)
    value = wnp.where((z < a) | (z > b), -np.inf, value)
    return wnp.where(a >= b, np.nan, value)


@export
def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.truncnorm.pdf``."""
    return lax.exp(logpdf(x, a, b, loc, scale))


@export
def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.truncnorm.logcdf``: log mass of [a, z] over that of [a, b];
    near 0 it is log1p(-sf) (scipy's guard against cancellation)."""
    x, a, b, loc, scale = inexact("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = wnp.broadcast_arrays(x, a, b)
    z = lax.div(lax.sub(x, loc), scale)
    total = _log_mass(a, b)
    below, above = _log_mass(a, z) - total, _log_mass(z, b) - total
    conditions = [z >= b, z <= a, below > -0.1, z > a]
    value = wnp.select(conditions, [0, -np.inf, wnp.log1p(-wnp.exp(above)), below])
    return wnp.where(a >= b, np.nan, value)


@export
def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.truncnorm.cdf``."""
    return lax.exp(logcdf(x, a, b, loc, scale))


@export
def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.truncnorm.logsf``: the logcdf of the mirrored distribution."""
    x, a, b, loc, scale = inexact("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(lax.neg(x), lax.neg(b), lax.neg(a), lax.neg(loc), scale)


@export
def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.truncnorm.sf``."""
    return lax.exp(logsf(x, a, b, loc, scale))
