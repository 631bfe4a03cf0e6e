"""``weaktrace.scipy.stats.betabinom``: the jax.scipy.stats.betabinom mirror (the
beta-binomial distribution)."""

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
def logpmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.betabinom.logpmf``: -log(n + 1) - log B(n - y + 1, y + 1)
    + log B(y + a, n - y + b) - log B(a, b), y = floor(k) - loc; -inf off the support,
    NaN for n < 0, a <= 0 or b <= 0."""
    k, n, a, b, loc = inexact("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = const(y, 1), const(y, 0)
    n_y = lax.sub(n, y)
    comb = lax.neg(lax.add(lax.log1p(n), special.betaln(lax.add(n_y, one), lax.add(y, one))))
    ratio = lax.sub(special.betaln(lax.add(y, a), lax.add(n_y, b)), special.betaln(a, b))
    log_probs = lax.add(comb, ratio)
    log_probs = wnp.where(lax.eq(y, zero) & lax.eq(n, zero), 0.0, log_probs)
    off = lax.lt(y, lax.neg(loc)) | lax.gt(y, n) | lax.le(lax.add(y, a), zero)
    log_probs = wnp.where(off, -np.inf, log_probs)
    invalid = lax.lt(n, zero) | lax.le(a, zero) | lax.le(b, zero)
    return wnp.where(invalid, np.nan, log_probs)


@export
def pmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
    """``jax.scipy.stats.betabinom.pmf``."""
    return lax.exp(logpmf(k, n, a, b, loc))
