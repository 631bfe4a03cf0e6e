"""``weaktrace.scipy.stats.cauchy``: the jax.scipy.stats.cauchy mirror."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy.stats._common import const, inexact, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


@export
def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.cauchy.logpdf``: -log(pi scale) - log1p(z**2)."""
    x, loc, scale = inexact("cauchy.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    norm = lax.log(lax.mul(const(x, np.pi), scale))
    return lax.neg(lax.add(norm, lax.log1p(lax.mul(z, z))))


@export
def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.cauchy.pdf``."""
    return lax.exp(logpdf(x, loc, scale))


@export
def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.cauchy.cdf``: 1/2 + arctan(z) / pi."""
    x, loc, scale = inexact("cauchy.cdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    inv_pi = lax.div(const(x, 1.0), const(x, np.pi))
    return lax.add(const(x, 0.5), lax.mul(inv_pi, wnp.arctan(z)))


@export
def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.cauchy.logcdf``."""
    return lax.log(cdf(x, loc, scale))


@export
def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.cauchy.sf``: the cdf mirrored about loc."""
    x, loc, scale = inexact("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


@export
def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.cauchy.logsf``."""
    x, loc, scale = inexact("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def _tan_quantile(name: str, q: Any, loc: Any, scale: Any, sign: int) -> Any:
    q, loc, scale = inexact(name, q, loc, scale)
    pi_q, half_pi = lax.mul(const(q, np.pi), q), const(q, np.pi / 2)
    angle = lax.sub(pi_q, half_pi) if sign > 0 else lax.sub(half_pi, pi_q)
    return lax.add(lax.mul(lax.tan(angle), scale), loc)


@export
def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.cauchy.ppf``: tan(pi q - pi / 2) scale + loc."""
    return _tan_quantile("cauchy.ppf", q, loc, scale, 1)


@export
def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.cauchy.isf``: tan(pi / 2 - pi q) scale + loc."""
    return _tan_quantile("cauchy.isf", q, loc, scale, -1)
