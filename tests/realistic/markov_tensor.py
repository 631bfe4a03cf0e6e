"""A two-site Markov chain as a tensor: stationary distribution by tensorsolve, the
tensorinv of its fundamental matrix, mixing from eigvalsh of the symmetrised chain,
n-step transitions by matrix_power, and the gradient of a log-determinant (slogdet)
with respect to the transition logits."""

import jax
import jax.numpy as jnp
from jax import nn


def transition(logits):
    return nn.softmax(logits, axis=-1)


def fundamental_logdet(logits):
    p = transition(logits)
    n = p.shape[0]
    _sign, logdet = jnp.linalg.slogdet(jnp.eye(n) - p + jnp.ones((n, n)) / n)
    return logdet


def run(logits):
    p = transition(logits)
    n = p.shape[0]
    a = (jnp.eye(n) - p.T).at[-1].set(1.0)
    rhs = jnp.zeros(n).at[-1].set(1.0)
    pi = jnp.linalg.tensorsolve(a.reshape(n, 2, n // 2), rhs).reshape(n)
    z = jnp.linalg.tensorinv((jnp.eye(n) - p + pi.reshape(1, n)).reshape(n, 2, n // 2), ind=1)
    sym = jnp.sqrt(pi)[:, None] * p / jnp.sqrt(pi)[None, :]
    evals = jnp.linalg.eigvalsh(0.5 * (sym + sym.T))
    p8 = jnp.linalg.matrix_power(p, 8)
    g = jax.grad(fundamental_logdet)(logits)
    return pi, z, evals, p8, g, jnp.linalg.det(p), jnp.linalg.matrix_rank(p8)


def inputs(rng):
    return (jnp.asarray(rng.standard_normal((4, 4)).astype("float32")),)
