"""``weaktrace.scipy.stats.gennorm``: the jax.scipy.stats.gennorm mirror (the
generalized normal distribution with shape beta)."""

from __future__ import annotations

from typing import Any

from weaktrace import lax as _lax
from weaktrace.scipy.stats._common import inexact, registry

lax: Any = _lax  # the mirror modules fill their namespaces at import

EXPORTS, export = registry()


@export
def logpdf(x: Any, beta: Any) -> Any:
    """``jax.scipy.stats.gennorm.logpdf``: log(beta / 2) - lgamma(1 / beta) - |x|^beta."""
    x, beta = inexact("gennorm.logpdf", x, beta)
    return lax.log(0.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


@export
def cdf(x: Any, beta: Any) -> Any:
    """``jax.scipy.stats.gennorm.cdf``: (1 + sign(x) P(1 / beta, |x|^beta)) / 2."""
    x, beta = inexact("gennorm.cdf", x, beta)
    return 0.5 * (1 + lax.sign(x) * lax.igamma(1 / beta, lax.abs(x) ** beta))


@export
def pdf(x: Any, beta: Any) -> Any:
    """``jax.scipy.stats.gennorm.pdf``."""
    return lax.exp(logpdf(x, beta))
