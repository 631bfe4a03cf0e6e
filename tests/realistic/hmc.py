"""Hamiltonian Monte Carlo on a banana-shaped density: gradients with jax.grad, a leapfrog
integrator in lax.fori_loop, Metropolis acceptance with random.uniform, and the chain in
lax.scan with a fresh key per step from random.split (BlackJAX / NumPyro style)."""

import jax
import jax.numpy as jnp
from jax import lax, random


def log_density(x):
    return -0.5 * (x[0] ** 2 / 4.0 + (x[1] - 0.25 * x[0] ** 2) ** 2) - 0.5 * jnp.sum(x[2:] ** 2)


def leapfrog(x, p, step_size, n_steps):
    grad = jax.grad(log_density)

    def body(_, state):
        x, p = state
        p = p + 0.5 * step_size * grad(x)
        x = x + step_size * p
        p = p + 0.5 * step_size * grad(x)
        return x, p

    return lax.fori_loop(0, n_steps, body, (x, p))


def hmc_step(state, key, step_size=0.2, n_leapfrog=5):
    x, logp = state
    k_mom, k_acc = random.split(key)
    p0 = random.normal(k_mom, x.shape, x.dtype)
    x_new, p_new = leapfrog(x, p0, step_size, n_leapfrog)
    logp_new = log_density(x_new)
    log_ratio = logp_new - 0.5 * jnp.sum(p_new**2) - (logp - 0.5 * jnp.sum(p0**2))
    accept = jnp.log(random.uniform(k_acc)) < log_ratio
    x = jnp.where(accept, x_new, x)
    logp = jnp.where(accept, logp_new, logp)
    return (x, logp), (x, accept, jnp.minimum(1.0, jnp.exp(log_ratio)))


def run(key, x0):
    keys = random.split(key, 20)
    (x, logp), (samples, accepted, probs) = lax.scan(hmc_step, (x0, log_density(x0)), keys)
    return x, logp, samples.mean(axis=0), accepted.mean(), jnp.mean(probs)


def inputs(rng):
    return random.PRNGKey(3), rng.standard_normal(3).astype("float32")
