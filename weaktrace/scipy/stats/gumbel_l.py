"""``weaktrace.scipy.stats.gumbel_l``: the jax.scipy.stats.gumbel_l mirror (the
left-skewed Gumbel distribution). Results are NaN where scale <= 0."""

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


def _z(name: str, x: Any, loc: Any, scale: Any) -> tuple[Any, Any, Any]:
    """(scale > 0, (x - loc) / scale, scale), promoted."""
    x, loc, scale = inexact(name, x, loc, scale)
    return lax.gt(scale, const(scale, 0)), lax.div(lax.sub(x, loc), scale), scale


@export
def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_l.logpdf``: z - exp(z) - log scale."""
    ok, z, scale = _z("gumbel_l.logpdf", x, loc, scale)
    value = lax.add(special.xlogy(-1, scale), lax.sub(z, lax.exp(z)))
    return wnp.where(ok, value, np.nan)


@export
def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_l.pdf``."""
    return lax.exp(logpdf(x, loc, scale))


@export
def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_l.logcdf``: log(-expm1(-exp(z)))."""
    ok, z, _ = _z("gumbel_l.logcdf", x, loc, scale)
    return wnp.where(ok, lax.log(-lax.expm1(lax.neg(lax.exp(z)))), np.nan)


@export
def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_l.cdf``."""
    return lax.exp(logcdf(x, loc, scale))


@export
def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_l.logsf``: -exp(z)."""
    ok, z, _ = _z("gumbel_l.logsf", x, loc, scale)
    return wnp.where(ok, lax.neg(lax.exp(z)), np.nan)


@export
def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_l.sf``."""
    return wnp.exp(logsf(x, loc, scale))


@export
def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_l.ppf``: loc + scale log(-log1p(-p)); NaN outside (0, 1)."""
    p, loc, scale = inexact("gumbel_l.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, const(p, 0)), lax.lt(p, const(p, 1)))
    value = lax.add(loc, lax.mul(scale, lax.log(special.xlog1py(-1, lax.neg(p)))))
    return wnp.where(ok, value, np.nan)
