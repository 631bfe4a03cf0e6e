"""``weaktrace.scipy.stats.uniform``: the jax.scipy.stats.uniform mirror."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy.stats._common import inexact, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


@export
def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.uniform.logpdf``: -log scale on [loc, loc + scale], else -inf."""
    x, loc, scale = inexact("uniform.logpdf", x, loc, scale)
    outside = wnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    return wnp.where(outside, -np.inf, lax.neg(lax.log(scale)))


@export
def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.uniform.pdf``."""
    return lax.exp(logpdf(x, loc, scale))


@export
def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.uniform.cdf``: 0 below, (x - loc) / scale inside, 1 above
    (0 where no condition holds: NaN operands)."""
    x, loc, scale = inexact("uniform.cdf", x, loc, scale)
    dt = x.aval[1].numpy
    zero, one = wnp.array(0, dt), wnp.array(1, dt)
    hi = lax.add(loc, scale)
    conds = [lax.lt(x, loc), lax.gt(x, hi), lax.ge(x, loc) & lax.le(x, hi)]
    return wnp.select(conds, [zero, one, lax.div(lax.sub(x, loc), scale)])


@export
def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``jax.scipy.stats.uniform.ppf``: loc + scale q; NaN outside [0, 1]."""
    q, loc, scale = inexact("uniform.ppf", q, loc, scale)
    bad = wnp.isnan(q) | (q < 0) | (q > 1)
    return wnp.where(bad, np.nan, lax.add(loc, lax.mul(scale, q)))
