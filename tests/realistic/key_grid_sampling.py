"""Minibatch sampling on a grid of typed keys: random.split with a shape tuple, the
(epochs, workers) key array reshaped and vmapped over, choice with p= and replace=False, and
permutation with independent=True inside the vmapped worker."""

import jax
import jax.numpy as jnp
from jax import random


def worker_batch(key, data, weights):
    k_idx, k_perm = random.split(key)
    idx = random.choice(k_idx, data.shape[0], (3,), replace=False, p=weights)
    return random.permutation(k_perm, data[idx], axis=1, independent=True)


def run(seed, data, scores):
    data = jnp.asarray(data)
    keys = random.split(random.key(seed), (2, 3))
    weights = jnp.exp(scores) / jnp.exp(scores).sum()
    flat = keys.reshape(-1)
    batches = jax.vmap(worker_batch, in_axes=(0, None, None))(flat, data, weights)
    batches = batches.reshape(keys.shape + batches.shape[1:])
    return batches, random.key_data(keys)


def inputs(rng):
    data = rng.standard_normal((6, 4)).astype("float32")
    return 11, data, rng.standard_normal(6).astype("float32")
