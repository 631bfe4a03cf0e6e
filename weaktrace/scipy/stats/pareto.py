"""``weaktrace.scipy.stats.pareto``: the jax.scipy.stats.pareto mirror."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy.stats._common import const, inexact, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


def _scaled(name: str, x: Any, b: Any, loc: Any, scale: Any) -> tuple[Any, ...]:
    x, b, loc, scale = inexact(name, x, b, loc, scale)
    below = lax.lt(x, lax.add(loc, scale))
    return x, b, scale, lax.div(lax.sub(x, loc), scale), below


@export
def logpdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.pareto.logpdf``: log(b / scale) - (b + 1) log z; -inf below."""
    x, b, scale, z, below = _scaled("pareto.logpdf", x, b, loc, scale)
    norm = lax.log(lax.div(scale, b))
    log_probs = lax.neg(lax.add(norm, lax.mul(lax.add(b, const(x, 1)), lax.log(z))))
    return wnp.where(below, -np.inf, log_probs)


@export
def pdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.pareto.pdf``."""
    return lax.exp(logpdf(x, b, loc, scale))


@export
def cdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.pareto.cdf``: 1 - z**-b; 0 below."""
    x, b, _, z, below = _scaled("pareto.cdf", x, b, loc, scale)
    value = lax.sub(const(x, 1), lax.pow(z, lax.neg(b)))
    return wnp.where(below, const(x, 0), value)


@export
def logcdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.pareto.logcdf``: log1p(-z**-b); -inf below."""
    x, b, _, z, below = _scaled("pareto.logcdf", x, b, loc, scale)
    return wnp.where(below, -np.inf, lax.log1p(lax.neg(lax.pow(z, lax.neg(b)))))


@export
def logsf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.pareto.logsf``: -b log z; 0 below."""
    x, b, _, z, below = _scaled("pareto.logsf", x, b, loc, scale)
    return wnp.where(below, const(x, 0), lax.neg(lax.mul(b, lax.log(z))))


@export
def sf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.pareto.sf``."""
    return lax.exp(logsf(x, b, loc, scale))


@export
def ppf(q: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.pareto.ppf``: loc + scale (1 - q)**(-1 / b); NaN outside [0, 1]."""
    q, b, loc, scale = inexact("pareto.ppf", q, b, loc, scale)
    one = const(q, 1)
    value = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
    return wnp.where(wnp.isnan(q) | (q < 0) | (q > 1), np.nan, value)
