"""``weaktrace.scipy.stats.chi2``: the jax.scipy.stats.chi2 mirror."""

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
def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.chi2.logpdf``: (df/2 - 1) log y - y/2 - lgamma(df/2)
    - df/2 log 2 - log scale; -inf below loc."""
    x, df, loc, scale = inexact("chi2.logpdf", x, df, loc, scale)
    one, two = const(x, 1), const(x, 2)
    y = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(half_df, one), lax.log(y)), lax.div(y, two))
    norm = lax.neg(lax.add(lax.lgamma(half_df), lax.div(lax.mul(lax.log(two), df), two)))
    log_probs = lax.add(lax.sub(norm, lax.log(scale)), kernel)
    return wnp.where(lax.lt(x, loc), -np.inf, log_probs)


@export
def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.chi2.pdf``."""
    return lax.exp(logpdf(x, df, loc, scale))


def _half(name: str, x: Any, df: Any, loc: Any, scale: Any) -> tuple[Any, Any]:
    """(df / 2, (x - loc) / (2 scale) clamped to [0, inf])."""
    x, df, loc, scale = inexact(name, x, df, loc, scale)
    two = const(scale, 2)
    y = lax.div(lax.sub(x, loc), lax.mul(scale, two))
    return lax.div(df, two), lax.clamp(const(x, 0), y, const(x, np.inf))


@export
def cdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.chi2.cdf``: gammainc(df / 2, y / 2)."""
    return special.gammainc(*_half("chi2.cdf", x, df, loc, scale))


@export
def logcdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.chi2.logcdf``."""
    return lax.log(cdf(x, df, loc, scale))


@export
def sf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.chi2.sf``: gammaincc(df / 2, y / 2)."""
    return special.gammaincc(*_half("chi2.sf", x, df, loc, scale))


@export
def logsf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.chi2.logsf``."""
    return lax.log(sf(x, df, loc, scale))
