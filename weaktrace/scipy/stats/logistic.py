"""``weaktrace.scipy.stats.logistic``: the jax.scipy.stats.logistic mirror."""

from __future__ import annotations

from typing import Any

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy import special
from weaktrace.scipy.stats._common import const, inexact, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


def _std(name: str, x: Any, loc: Any, scale: Any) -> tuple[Any, Any, Any]:
    x, loc, scale = inexact(name, x, loc, scale)
    return x, loc, scale


@export
def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.logistic.logpdf``: -2 logaddexp(z / 2, -z / 2) - log scale."""
    x, loc, scale = _std("logistic.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    two = const(z, 2)
    h = lax.div(z, two)
    return lax.sub(lax.mul(lax.neg(two), wnp.logaddexp(h, lax.neg(h))), lax.log(scale))


@export
def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.logistic.pdf``."""
    return lax.exp(logpdf(x, loc, scale))


@export
def ppf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.logistic.ppf``: logit(q) scale + loc."""
    x, loc, scale = _std("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(special.logit(x), scale), loc)


@export
def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.logistic.sf``: expit(-(x - loc) / scale)."""
    x, loc, scale = _std("logistic.sf", x, loc, scale)
    return special.expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


@export
def isf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.logistic.isf``: -logit(q) scale + loc."""
    x, loc, scale = _std("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(special.logit(x)), scale), loc)


@export
def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.logistic.cdf``: expit((x - loc) / scale)."""
    x, loc, scale = _std("logistic.cdf", x, loc, scale)
    return special.expit(lax.div(lax.sub(x, loc), scale))
