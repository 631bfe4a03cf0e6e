"""A synthetic-data generator for a robustness benchmark: every corruption draws from a
different jax.random sampler with explicit shape= and dtype= keywords (bf16 noise, int8
labels, uint32 bits), heavy-tailed and bounded noise, and mixture components."""

import jax.numpy as jnp
from jax import random


def corrupt(key, images):
    k = random.split(key, 10)
    n = images.shape[0]
    gauss = random.normal(k[0], images.shape, dtype=jnp.bfloat16)
    logis = random.logistic(k[1], images.shape)
    cauchy = random.cauchy(k[2], shape=(n, 1, 1))
    shot = random.exponential(k[3], images.shape, dtype=jnp.float16)
    flips = random.rademacher(k[4], (n, 1, 1), dtype=jnp.float32)
    gain = random.uniform(k[5], (n, 1, 1), minval=0.5, maxval=1.5)
    mask = random.bernoulli(k[6], p=0.9, shape=images.shape)
    labels = random.randint(k[7], (n,), minval=-3, maxval=4, dtype=jnp.int8)
    bits = random.bits(k[8], (n, 2), dtype=jnp.uint32)
    logistic = random.logistic(k[9], (n,), dtype=jnp.float32)
    out = images * gain * flips + 0.1 * gauss.astype(jnp.float32) + 0.01 * logis
    out = jnp.where(mask, out + 0.001 * cauchy + 0.01 * shot, 0.0)
    return out, labels, bits, logistic


def mixture(key, n):
    k1, k2, k3, k4 = random.split(key, 4)
    weights = random.categorical(k1, jnp.log(jnp.array([0.2, 0.3, 0.5])), shape=(n,))
    lap = random.laplace(k2, (n,), dtype=jnp.float32)
    wb = random.weibull_min(k3, scale=2.0, concentration=1.5, shape=(n,))
    trunc = random.truncated_normal(k4, -1.0, 2.0, (n,), dtype=jnp.bfloat16)
    return weights, lap, wb, trunc


def run(seed, images):
    key = random.PRNGKey(seed)
    k1, k2, k3 = random.split(key, 3)
    out, labels, bits, logistic = corrupt(k1, images)
    weights, lap, wb, trunc = mixture(k2, 4)
    perm = random.permutation(k3, images.shape[0])
    choice = random.choice(k3, 10, shape=(3,), replace=False)
    return out[perm], labels, bits, logistic, weights, lap, wb, trunc, choice


def inputs(rng):
    return 11, rng.uniform(size=(4, 3, 3)).astype("float32")
