"""``weaktrace.scipy.stats.gumbel_r``: the jax.scipy.stats.gumbel_r mirror (the
right-skewed Gumbel distribution). Results are NaN where scale <= 0 (ppf: outside
0 < p < 1)."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.core import primitives_special as S
from weaktrace.numpy._core import bind
from weaktrace.scipy import special
from weaktrace.scipy.stats._common import const, inexact, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


def _scaled(name: str, x: Any, loc: Any, scale: Any) -> tuple[Any, Any, Any]:
    """(scale > 0, x promoted, (loc - x) / scale, i.e. -z)."""
    x, loc, scale = inexact(name, x, loc, scale)
    return lax.gt(scale, const(scale, 0)), x, lax.div(lax.sub(loc, x), scale)


@export
def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_r.logpdf``: -(z + exp(-z)) - log scale."""
    x, loc, scale = inexact("gumbel_r.logpdf", x, loc, scale)
    ok = lax.gt(scale, const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    value = lax.add(special.xlogy(-1, scale), lax.neg(lax.add(z, lax.exp(lax.neg(z)))))
    return wnp.where(ok, value, np.nan)


@export
def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_r.pdf``."""
    return lax.exp(logpdf(x, loc, scale))


@export
def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_r.logcdf``: -exp(-z)."""
    x, loc, scale = inexact("gumbel_r.logcdf", x, loc, scale)
    ok = lax.gt(scale, const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    return wnp.where(ok, lax.neg(lax.exp(lax.neg(z))), np.nan)


@export
def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_r.cdf``."""
    return lax.exp(logcdf(x, loc, scale))


@export
def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_r.ppf``: loc - scale log(-log p)."""
    p, loc, scale = inexact("gumbel_r.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, const(p, 0)), lax.lt(p, const(p, 1)))
    value = lax.sub(loc, lax.mul(scale, lax.log(special.xlogy(-1, p))))
    return wnp.where(ok, value, np.nan)


@export
def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_r.sf``: 1 - exp(-exp(-z))."""
    ok, x, neg_z = _scaled("gumbel_r.sf", x, loc, scale)
    value = lax.sub(const(x, 1), lax.exp(lax.neg(lax.exp(neg_z))))
    return wnp.where(ok, value, np.nan)


@export
def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.gumbel_r.logsf``: log1mexp(exp(-z)), i.e. log(1 - cdf)."""
    ok, _, neg_z = _scaled("gumbel_r.logsf", x, loc, scale)
    return wnp.where(ok, _log1mexp(lax.exp(neg_z)), np.nan)


def _log1mexp(x: Any) -> Any:
    """``jax.nn.log1mexp`` of an inexact x (weaktrace.nn's primitive: weaktrace.nn
    imports weaktrace.scipy, so this module cannot import it)."""
    _, dt, weak = x.aval
    return bind(S.log1mexp_p, x, dtype=dt, weak=weak)
