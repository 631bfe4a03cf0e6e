"""Entropic optimal transport with log-domain Sinkhorn iterations (as OTT-JAX writes them):
logsumexp updates of the dual potentials in lax.while_loop until the marginal error is
below a tolerance or an iteration cap, then the transport plan and the regularised cost."""

import jax.numpy as jnp
from jax import lax
from jax.scipy.special import logsumexp


def pairwise_sq_dist(x, y):
    return jnp.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1)


def sinkhorn(a, b, cost, epsilon=0.1, tol=1e-4, max_iter=200):
    log_a, log_b = jnp.log(a), jnp.log(b)

    def cond(state):
        i, _, _, err = state
        return (i < max_iter) & (err > tol)

    def body(state):
        i, f, g, _ = state
        f = epsilon * log_a - epsilon * logsumexp((g[None, :] - cost) / epsilon, axis=1)
        lse = logsumexp((f[:, None] - cost) / epsilon, axis=0)
        g = epsilon * log_b - epsilon * lse  # expect: carry-change
        log_plan = (f[:, None] + g[None, :] - cost) / epsilon
        err = jnp.sum(jnp.abs(jnp.exp(log_plan).sum(axis=1) - a))  # expect: carry-change
        return i + 1, f, g, err

    init = (0, jnp.zeros_like(a), jnp.zeros_like(b), jnp.inf)
    n, f, g, err = lax.while_loop(cond, body, init)
    plan = jnp.exp((f[:, None] + g[None, :] - cost) / epsilon)
    return plan, f, g, n, err


def run(x, y):
    a = jnp.ones(x.shape[0]) / x.shape[0]
    b = jnp.full((y.shape[0],), 1.0 / y.shape[0])
    cost = pairwise_sq_dist(x, y)
    plan, f, g, n, err = sinkhorn(a, b, cost / cost.max())
    return plan, jnp.sum(plan * cost), jnp.dot(f, a) + jnp.dot(g, b), n, err < 1e-4


def inputs(rng):
    return rng.standard_normal((6, 2)).astype("float32"), rng.standard_normal((5, 2)).astype(
        "float32"
    ) + 1.0
