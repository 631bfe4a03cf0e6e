"""``weaktrace.scipy.stats.dirichlet``: the jax.scipy.stats.dirichlet mirror. The
categories run along x's first axis; x may omit the last one (it is 1 - the rest)."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.scipy import special
from weaktrace.scipy.stats._common import const, inexact_dtypes, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


def _on_simplex(x: Any) -> Any:
    """Every entry positive and the entries summing to 1 (to 1e-6), per column."""
    return wnp.all(x > 0, axis=0) & (abs(wnp.sum(x, axis=0) - 1) < 1e-6)


@export
def logpdf(x: Any, alpha: Any) -> Any:
    """``jax.scipy.stats.dirichlet.logpdf``: sum (alpha - 1) log x - log B(alpha);
    -inf off the simplex."""
    x, alpha = inexact_dtypes("dirichlet.logpdf", x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    k = alpha.shape[0]
    if x.shape[0] not in (k, k - 1):
        raise ValueError(
            "`x` must have either the same number of entries as `alpha` or one entry "
            f"fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}"
        )
    one = const(x, 1)
    if x.shape[0] != k:  # the omitted last category
        x = wnp.concatenate([x, lax.sub(one, x.sum(0, keepdims=True))], axis=0)
    log_beta = wnp.sum(special.gammaln(alpha)) - special.gammaln(wnp.sum(alpha))
    if x.ndim > 1:  # alpha runs along x's first axis
        alpha = lax.broadcast_in_dim(alpha, alpha.shape + (1,) * (x.ndim - 1), (0,))
    log_probs = lax.sub(wnp.sum(special.xlogy(lax.sub(alpha, one), x), axis=0), log_beta)
    return wnp.where(_on_simplex(x), log_probs, -np.inf)


@export
def pdf(x: Any, alpha: Any) -> Any:
    """``jax.scipy.stats.dirichlet.pdf``."""
    return lax.exp(logpdf(x, alpha))
