"""``weaktrace.scipy.stats.norm``: the jax.scipy.stats.norm mirror (the normal
distribution), written on weaktrace.lax / weaktrace.scipy.special with jax's promotion:
operands promoted inexact (integers become the default float, Python scalars stay
weak), constants made as ``lax._const`` makes them."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy import special
from weaktrace.scipy.stats._common import const, inexact, raw_const, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


@export
def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.norm.logpdf``: -((x - loc) / scale)**2 / 2 - log(2 pi scale**2) / 2."""
    x, loc, scale = inexact("norm.logpdf", x, loc, scale)
    var = lax.square(scale)
    log_norm = lax.log(lax.mul(const(x, 2 * np.pi), var))
    quad = lax.div(lax.square(lax.sub(x, loc)), var)
    return lax.div(lax.add(log_norm, quad), const(x, -2))


@export
def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.norm.pdf``."""
    return lax.exp(logpdf(x, loc, scale))


@export
def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.norm.cdf``: ndtr of the standardised x."""
    x, loc, scale = inexact("norm.cdf", x, loc, scale)
    return special.ndtr(lax.div(lax.sub(x, loc), scale))


@export
def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.norm.logcdf``: log_ndtr of the standardised x."""
    x, loc, scale = inexact("norm.logcdf", x, loc, scale)
    return special.log_ndtr(lax.div(lax.sub(x, loc), scale))


@export
def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.norm.sf``: the cdf mirrored about loc."""
    x, loc, scale = inexact("norm.sf", x, loc, scale)
    return cdf(lax.neg(x), lax.neg(loc), scale)


@export
def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.norm.logsf``."""
    x, loc, scale = inexact("norm.logsf", x, loc, scale)
    return logcdf(lax.neg(x), lax.neg(loc), scale)


@export
def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.norm.ppf``: ndtri(q) * scale + loc (jax.numpy arithmetic), as
    the default float (jax converts the result with ``asarray(..., float)``)."""
    return wnp.asarray(wnp.add(wnp.multiply(special.ndtri(q), scale), loc), float)


@export
def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.norm.isf``: ppf(1 - q)."""
    q, one = raw_const(q, 1)
    return ppf(lax.sub(one, q), loc, scale)
