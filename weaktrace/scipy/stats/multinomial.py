"""``weaktrace.scipy.stats.multinomial``: the jax.scipy.stats.multinomial mirror. The
counts x run along the last axis and must be integers (jax raises ValueError otherwise)."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy import special
from weaktrace.scipy.stats._common import inexact, numeric, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


@export
def logpmf(x: Any, n: Any, p: Any) -> Any:
    """``jax.scipy.stats.multinomial.logpmf``: log n! + sum(x log p - log x!); -inf
    unless the counts sum to n (all of x, as jax sums it)."""
    (p,) = inexact("multinomial.logpmf", p)
    x, n = numeric("multinomial.logpmf", x, n)
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(
            f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}"
        )
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    terms = special.xlogy(x, p) - special.gammaln(x + 1)
    log_probs = special.gammaln(n + 1) + wnp.sum(terms, axis=-1)
    return wnp.where(wnp.equal(wnp.sum(x), n), log_probs, -np.inf)


@export
def pmf(x: Any, n: Any, p: Any) -> Any:
    """``jax.scipy.stats.multinomial.pmf``."""
    return lax.exp(logpmf(x, n, p))
