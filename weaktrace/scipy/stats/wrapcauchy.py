"""``weaktrace.scipy.stats.wrapcauchy``: the jax.scipy.stats.wrapcauchy mirror (the
wrapped Cauchy distribution on [0, 2 pi]); NaN unless 0 < c < 1."""

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
def logpdf(x: Any, c: Any) -> Any:
    """``jax.scipy.stats.wrapcauchy.logpdf``: log((1 - c^2) / (2 pi (1 + c^2 - 2c cos x)));
    -inf outside [0, 2 pi]."""
    x, c = inexact("wrapcauchy.logpdf", x, c)
    value = wnp.log(1 - c * c) - wnp.log(2 * np.pi) - wnp.log(1 + c * c - 2 * c * wnp.cos(x))
    inside = lax.ge(x, const(x, 0)) & lax.le(x, const(x, np.pi * 2))
    valid = lax.gt(c, const(c, 0)) & lax.lt(c, const(c, 1))
    return wnp.where(valid, wnp.where(inside, value, -np.inf), np.nan)


@export
def pdf(x: Any, c: Any) -> Any:
    """``jax.scipy.stats.wrapcauchy.pdf``."""
    return lax.exp(logpdf(x, c))
