"""``weaktrace.scipy.stats.t``: the jax.scipy.stats.t mirror (Student's t)."""

from __future__ import annotations

from typing import Any

import numpy as np

from weaktrace import lax as _lax
from weaktrace.scipy.stats._common import const, inexact, registry

lax: Any = _lax

EXPORTS, export = registry()


@export
def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.t.logpdf``: lgamma((df + 1) / 2) - lgamma(df / 2)
    - log(pi df scale**2) / 2 - (df + 1) / 2 log1p(z**2 / df)."""
    x, df, loc, scale = inexact("t.logpdf", x, df, loc, scale)
    two = const(x, 2)
    z = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    power = lax.add(half_df, const(x, 0.5))
    log_area = lax.div(lax.log(lax.mul(lax.mul(lax.mul(scale, scale), const(x, np.pi)), df)), two)
    norm = lax.sub(lax.add(lax.lgamma(half_df), log_area), lax.lgamma(power))
    quad = lax.div(lax.mul(z, z), df)
    return lax.neg(lax.add(norm, lax.mul(power, lax.log1p(quad))))


@export
def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.t.pdf``."""
    return lax.exp(logpdf(x, df, loc, scale))
