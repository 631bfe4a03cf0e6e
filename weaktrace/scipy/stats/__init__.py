"""``weaktrace.scipy.stats``: the jax.scipy.stats mirror, one module per distribution
as in jax. Each function promotes as jax's does and computes on weaktrace's own
primitives, so it runs eagerly, under ``weaktrace.trace`` and under jax transforms."""

from __future__ import annotations

from weaktrace.scipy.stats import (
    bernoulli,
    beta,
    binom,
    cauchy,
    chi2,
    expon,
    gamma,
    geom,
    gumbel_l,
    laplace,
    logistic,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    uniform,
)

__all__ = [
    "bernoulli",
    "beta",
    "binom",
    "cauchy",
    "chi2",
    "expon",
    "gamma",
    "geom",
    "gumbel_l",
    "laplace",
    "logistic",
    "multivariate_normal",
    "nbinom",
    "norm",
    "pareto",
    "poisson",
    "t",
    "uniform",
]
