"""Sequential Monte Carlo resampling: systematic and stratified resampling by
jnp.searchsorted on the normalised cumulative weights, multinomial resampling with
random.choice, effective sample size, and inverse-CDF sampling of an empirical
distribution with jnp.interp."""

import jax.numpy as jnp
from jax import nn, random


def systematic(key, weights):
    n = weights.shape[0]
    u = (random.uniform(key, ()) + jnp.arange(n)) / n  # expect: implicit-promotion
    cdf = jnp.cumsum(weights)
    return jnp.clip(jnp.searchsorted(cdf, u, side="left"), 0, n - 1)


def stratified(key, weights):
    n = weights.shape[0]
    u = (random.uniform(key, (n,)) + jnp.arange(n)) / n  # expect: implicit-promotion
    cdf = jnp.cumsum(weights)
    cdf = cdf.at[-1].set(1.0)
    return jnp.searchsorted(cdf, u)


def inverse_cdf_samples(key, values, n):
    sorted_vals = jnp.sort(values)
    probs = (jnp.arange(values.shape[0]) + 0.5) / values.shape[0]  # expect: implicit-promotion
    u = random.uniform(key, (n,))
    return jnp.interp(u, probs, sorted_vals, left=sorted_vals[0], right=sorted_vals[-1])


def run(key, particles, log_weights):
    weights = nn.softmax(log_weights)
    ess = 1.0 / jnp.sum(weights**2)
    k1, k2, k3, k4 = random.split(key, 4)
    idx_sys = systematic(k1, weights)
    idx_str = stratified(k2, weights)
    idx_mult = random.choice(k3, weights.shape[0], (weights.shape[0],), p=weights)
    resampled = particles[idx_sys]
    mean = jnp.average(particles, weights=weights, axis=0)
    draws = inverse_cdf_samples(k4, particles[:, 0], 5)
    return idx_sys, idx_str, idx_mult, resampled, mean, ess, draws


def inputs(rng):
    return (
        random.PRNGKey(11),
        rng.standard_normal((8, 2)).astype("float32"),
        rng.standard_normal(8).astype("float32"),
    )
