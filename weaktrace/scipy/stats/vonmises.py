"""``weaktrace.scipy.stats.vonmises``: the jax.scipy.stats.vonmises mirror (the
circular normal distribution); NaN where kappa <= 0."""

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
def logpdf(x: Any, kappa: Any) -> Any:
    """``jax.scipy.stats.vonmises.logpdf``: kappa (cos x - 1) - log(2 pi i0e(kappa))
    (the exponentially scaled Bessel function keeps large kappa finite)."""
    x, kappa = inexact("vonmises.logpdf", x, kappa)
    value = kappa * (wnp.cos(x) - 1) - wnp.log(2 * np.pi * lax.bessel_i0e(kappa))
    return wnp.where(lax.gt(kappa, const(kappa, 0)), value, np.nan)


@export
def pdf(x: Any, kappa: Any) -> Any:
    """``jax.scipy.stats.vonmises.pdf``."""
    return lax.exp(logpdf(x, kappa))
