"""``weaktrace.scipy.stats.multivariate_normal``: the jax.scipy.stats.multivariate_normal
mirror. Operands are promoted inexact (dtypes only); a scalar mean is the univariate
normal with variance cov, a scalar cov an isotropic covariance, else cov's Cholesky
factor whitens x - mean (batch dimensions broadcast)."""

from __future__ import annotations

from typing import Any

import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import lax as _lax
from weaktrace.errors import ShapeError
from weaktrace.lax import linalg
from weaktrace.scipy.stats._common import inexact_dtypes, registry

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
lax: Any = _lax

EXPORTS, export = registry()


def _sq_norm(y: Any) -> Any:
    return wnp.einsum("...i,...i->...", y, y)


@export
def logpdf(x: Any, mean: Any, cov: Any, allow_singular: None = None) -> Any:
    """``jax.scipy.stats.multivariate_normal.logpdf``."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = inexact_dtypes("multivariate_normal.logpdf", x, mean, cov)
    if not mean.shape:
        quad = -1 / 2 * wnp.square(x - mean) / cov
        return quad - 1 / 2 * (wnp.log(2 * np.pi) + wnp.log(cov))
    n = mean.shape[-1]
    if not cov.shape:
        y = x - mean
        return -1 / 2 * _sq_norm(y) / cov - n / 2 * (wnp.log(2 * np.pi) + wnp.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ShapeError("multivariate_normal.logpdf got incompatible shapes")
    chol = linalg.cholesky(cov)
    y = x - mean
    batch = np.broadcast_shapes(chol.shape[:-2], y.shape[:-1])
    chol_b = wnp.broadcast_to(chol, (*batch, n, n))
    y_b = wnp.broadcast_to(y, (*batch, n))
    # jax solves y = L^-1 (x - mean) as x L^T = b, one vector per batch element
    z = linalg.triangular_solve(chol_b, y_b, lower=True, transpose_a=True)
    log_det = wnp.log(wnp.diagonal(chol, axis1=-1, axis2=-2)).sum(-1)
    return -1 / 2 * _sq_norm(z) - n / 2 * wnp.log(2 * np.pi) - log_det


@export
def pdf(x: Any, mean: Any, cov: Any) -> Any:
    """``jax.scipy.stats.multivariate_normal.pdf``."""
    return lax.exp(logpdf(x, mean, cov))
