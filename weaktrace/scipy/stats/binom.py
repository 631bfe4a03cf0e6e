"""``weaktrace.scipy.stats.binom``: the jax.scipy.stats.binom mirror."""

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


@export
def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.binom.logpmf``: log C(n, y) + y log p + (n - y) log1p(-p),
    y = k - loc; 0 where the linear term vanishes, -inf outside [loc, loc + n]."""
    k, n, p, loc = inexact("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    zero = const(y, 0)
    gl = special.gammaln
    comb = lax.sub(gl(n + 1), lax.add(gl(y + 1), gl(n - y + 1)))
    linear = lax.add(special.xlogy(y, p), special.xlog1py(lax.sub(n, y), lax.neg(p)))
    log_probs = lax.add(comb, linear)
    certain = wnp.logical_or(
        wnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)), lax.eq(linear, zero)
    )
    log_probs = wnp.where(certain, 0.0, log_probs)
    return wnp.where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), log_probs, -np.inf)


@export
def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.binom.pmf``."""
    return lax.exp(logpmf(k, n, p, loc))
