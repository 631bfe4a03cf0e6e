"""Polynomial regression and model selection with jnp.linalg: lstsq (residuals, rank,
singular values), pinv with rtol, svdvals and cond for conditioning, matrix_norm and
vector_norm with ord=, multi_dot for the hat matrix, matrix_power for a smoother, and the
gradient of a ridge objective through pinv."""

import jax
import jax.numpy as jnp


def design(t, degree):
    return jnp.stack([t**k for k in range(degree + 1)], axis=1)


def ridge_loss(lam, X, y):
    d = X.shape[1]
    w = jnp.linalg.pinv(X.T @ X + lam * jnp.eye(d)) @ X.T @ y
    return jnp.linalg.vector_norm(X @ w - y) ** 2 + lam * jnp.sum(w**2)


def run(t, y):
    X = design(t, 3)
    w, resid, rank, sv = jnp.linalg.lstsq(X, y)
    hat = jnp.linalg.multi_dot([X, jnp.linalg.pinv(X.T @ X), X.T])
    dof = jnp.trace(hat)
    smoother = jnp.linalg.matrix_power(0.5 * (hat + jnp.eye(hat.shape[0])), 3)
    cond = jnp.linalg.cond(X)
    norms = (
        jnp.linalg.matrix_norm(X),
        jnp.linalg.matrix_norm(X, ord=1),
        jnp.linalg.matrix_norm(X, ord=jnp.inf),
        jnp.linalg.vector_norm(X, ord=1, axis=0),
        jnp.linalg.vector_norm(y, ord=jnp.inf),
        jnp.linalg.norm(X, ord=-2),
    )
    pinv_cut = jnp.linalg.pinv(X, rtol=1e-2)
    lam = 0.3
    value, dlam = jax.value_and_grad(ridge_loss)(lam, X, y)
    svals = jnp.linalg.svdvals(X)
    inv_sq = jnp.linalg.matrix_power(X.T @ X, -1)
    return w, resid, rank, sv, dof, smoother @ y, cond, norms, pinv_cut, value, dlam, svals, inv_sq


def inputs(rng):
    t = jnp.linspace(-1.0, 1.0, 9, dtype=jnp.float32)
    y = 0.5 - t + 2 * t**3 + 0.1 * rng.standard_normal(9).astype("float32")
    return t, y
