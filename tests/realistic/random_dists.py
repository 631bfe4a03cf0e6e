"""Probabilistic-programming style sampling with jax.random: fold_in per-site keys,
gamma / beta / dirichlet / poisson / truncated_normal / gumbel / multivariate_normal /
choice with probabilities, reparameterised Gumbel-softmax, summary statistics."""

import jax.numpy as jnp
from jax import nn, random


def sample_site(key, name_id, dist, *args, **kwargs):
    return dist(random.fold_in(key, name_id), *args, **kwargs)


def gumbel_softmax(key, logits, tau=0.5, hard=True):
    g = random.gumbel(key, logits.shape, logits.dtype)
    y = nn.softmax((logits + g) / tau, axis=-1)
    if hard:
        y_hard = nn.one_hot(jnp.argmax(y, axis=-1), logits.shape[-1], dtype=y.dtype)
        y = y_hard - y + y  # straight-through (stop_gradient omitted: forward pass only)
    return y


def run(key, alpha, logits, mean, cov):
    n = 200
    g = sample_site(key, 0, random.gamma, alpha, (n, alpha.shape[0]))
    b = sample_site(key, 1, random.beta, 2.0, 5.0, (n,))
    d = sample_site(key, 2, random.dirichlet, alpha, (n,))
    p = sample_site(key, 3, random.poisson, 3.5, (n,))
    tn = sample_site(key, 4, random.truncated_normal, -1.0, 2.0, (n,))
    mvn = sample_site(key, 5, random.multivariate_normal, mean, cov, (n,))
    c = sample_site(key, 6, random.choice, 5, (n,), p=nn.softmax(logits))
    perm = sample_site(key, 7, random.permutation, jnp.arange(10))
    bern = sample_site(key, 8, random.bernoulli, 0.3, (n,))
    exp = sample_site(key, 9, random.exponential, (n,))
    lap = sample_site(key, 10, random.laplace, (n,))
    ri = sample_site(key, 11, random.randint, (n,), 0, 10, jnp.int32)
    gs = gumbel_softmax(random.fold_in(key, 12), jnp.tile(logits, (4, 1)))
    emp_cov = jnp.cov(mvn.T)
    stats = (
        g.mean(axis=0),
        b.mean(),
        d.mean(axis=0),
        p.mean(),
        tn.min(),
        tn.max(),
        jnp.bincount(c, length=5),
        bern.mean(),
        exp.mean(),
        lap.std(),
        ri.max(),
    )
    return stats, emp_cov, perm, gs, p.dtype == jnp.int32


def inputs(rng):
    alpha = jnp.array([0.5, 1.0, 3.0], dtype=jnp.float32)
    logits = rng.standard_normal(5).astype("float32")
    mean = jnp.array([1.0, -1.0], dtype=jnp.float32)
    cov = jnp.array([[1.0, 0.6], [0.6, 2.0]], dtype=jnp.float32)
    return random.PRNGKey(0), alpha, logits, mean, cov
