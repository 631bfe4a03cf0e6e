"""Bootstrap particle filter for a stochastic-volatility model: keys split inside
lax.scan, log-weights normalised with logsumexp, systematic resampling with cumsum +
searchsorted, effective sample size, jnp.where-guarded logs and jnp.asarray(0.0) states."""

import jax.numpy as jnp
from jax import lax, random
from jax.scipy.special import logsumexp


def transition(key, x, phi, sigma):
    return phi * x + sigma * random.normal(key, x.shape)


def log_likelihood(y, x, beta):
    var = beta**2 * jnp.exp(x)
    return -0.5 * (jnp.log(2 * jnp.pi * var) + y**2 / var)


def systematic_resample(key, log_weights):
    n = log_weights.shape[0]
    weights = jnp.exp(log_weights - logsumexp(log_weights))
    u = (random.uniform(key, ()) + jnp.arange(n)) / n  # expect: implicit-promotion
    cdf = jnp.cumsum(weights)
    idx = jnp.searchsorted(cdf, u)
    return jnp.clip(idx, 0, n - 1)


def safe_entropy(w):
    return -jnp.sum(jnp.where(w > 0, w * jnp.log(jnp.where(w > 0, w, 1.0)), 0.0))


def particle_filter(key, ys, n_particles, phi=0.9, sigma=0.3, beta=0.7):
    key, init_key = random.split(key)
    x0 = sigma / jnp.sqrt(1 - phi**2) * random.normal(init_key, (n_particles,))
    log_w0 = jnp.full((n_particles,), -jnp.log(n_particles))

    def step(carry, y):
        key, x, log_w, log_evidence, n_resampled = carry
        key, k_move, k_resample = random.split(key, 3)
        x = transition(k_move, x, phi, sigma)
        log_w = log_w + log_likelihood(y, x, beta)
        lse = logsumexp(log_w)
        log_evidence = log_evidence + lse  # expect: carry-change
        log_w = log_w - lse
        w = jnp.exp(log_w)
        ess = 1.0 / jnp.sum(w**2)
        do_resample = ess < n_particles / 2
        idx = systematic_resample(k_resample, log_w)
        x = jnp.where(do_resample, x[idx], x)
        reset = jnp.full_like(log_w, -jnp.log(n_particles))
        log_w = jnp.where(do_resample, reset, log_w)  # expect: carry-change
        n_resampled = n_resampled + do_resample.astype(jnp.int32)  # expect: carry-change
        mean = jnp.sum(w * x)
        return (key, x, log_w, log_evidence, n_resampled), (mean, ess, safe_entropy(w))

    init = (key, x0, log_w0, jnp.asarray(0.0), jnp.asarray(0))
    (_, x, _, log_evidence, n_resampled), (means, ess, ent) = lax.scan(step, init, ys)
    return means, ess, ent, log_evidence, n_resampled, x


def run(key, ys):
    return particle_filter(key, ys, 64)


def inputs(rng):
    return random.key(2), rng.standard_normal(15).astype("float32")
