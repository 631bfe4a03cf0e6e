"""Kernel ridge regression and Bayesian linear regression with Cholesky solves:
jax.scipy.linalg.cho_factor / cho_solve, solve_triangular for the predictive variance,
log-determinants from the factor's diagonal, and leave-one-out errors."""

import jax.numpy as jnp
from jax.scipy.linalg import cho_factor, cho_solve, solve_triangular


def rbf(x, y, lengthscale=1.0):
    d2 = jnp.sum(x**2, 1)[:, None] + jnp.sum(y**2, 1)[None, :] - 2 * x @ y.T
    return jnp.exp(-0.5 * jnp.maximum(d2, 0.0) / lengthscale**2)


def kernel_ridge(x, y, x_test, lam=1e-2):
    k = rbf(x, x) + lam * jnp.eye(x.shape[0])
    factor = cho_factor(k, lower=True)
    alpha = cho_solve(factor, y)
    k_star = rbf(x_test, x)
    mean = k_star @ alpha
    v = solve_triangular(factor[0], k_star.T, lower=True)
    var = 1.0 - jnp.sum(v**2, axis=0)
    log_det = 2.0 * jnp.sum(jnp.log(jnp.diag(factor[0])))
    k_inv = cho_solve(factor, jnp.eye(x.shape[0]))
    loo = alpha / jnp.diag(k_inv)
    return mean, var, log_det, loo


def bayesian_linear(x, y, alpha=1.0, beta=25.0):
    phi = jnp.concatenate([jnp.ones((x.shape[0], 1)), x], axis=1)
    precision = alpha * jnp.eye(phi.shape[1]) + beta * phi.T @ phi
    c, lower = cho_factor(precision)
    mean = beta * cho_solve((c, lower), phi.T @ y)
    return mean, lower


def run(x, y, x_test):
    return kernel_ridge(x, y, x_test), bayesian_linear(x, y)


def inputs(rng):
    x = rng.uniform(-2, 2, (8, 2)).astype("float32")
    y = (jnp.sin(x[:, 0]) + 0.1 * rng.standard_normal(8)).astype("float32")
    return x, y, rng.uniform(-2, 2, (4, 2)).astype("float32")
