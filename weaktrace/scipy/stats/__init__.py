"""``weaktrace.scipy.stats``: the jax.scipy.stats mirror, one module per distribution
as in jax. Each function promotes as jax's does and computes on weaktrace's own
primitives, so it runs eagerly, under ``weaktrace.trace`` and under jax transforms."""

from __future__ import annotations

from weaktrace.scipy.stats import (
    bernoulli,
    binom,
    cauchy,
    expon,
    gamma,
    laplace,
    logistic,
    multivariate_normal,
    norm,
    poisson,
    uniform,
)

__all__ = [
    "bernoulli",
    "binom",
    "cauchy",
    "expon",
    "gamma",
    "laplace",
    "logistic",
    "multivariate_normal",
    "norm",
    "poisson",
    "uniform",
]
