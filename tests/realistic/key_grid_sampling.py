"""Minibatch and augmentation sampling on a grid of typed keys: random.split with a shape
tuple, a (epochs, workers) key array vmapped twice, random.fold_in with a traced step in
a fori_loop, permutation with independent=True, choice with p= and replace=False."""

import jax
import jax.numpy as jnp
from jax import lax, random


def worker_batch(key, data, weights):
    k_idx, k_perm, k_noise = random.split(key, 3)
    idx = random.choice(k_idx, data.shape[0], (3,), replace=False, p=weights)
    batch = data[idx]
    shuffled = random.permutation(k_perm, batch, axis=1, independent=True)
    return shuffled + 0.1 * random.normal(k_noise, shuffled.shape)


def noisy_sum(key, data, steps=3):
    def body(i, acc):
        k = random.fold_in(key, i)
        return acc + random.uniform(k, data.shape[1:], minval=-1.0, maxval=1.0)

    return lax.fori_loop(0, steps, body, jnp.zeros(data.shape[1:]))


def run(seed, data, scores):
    data = jnp.asarray(data)
    keys = random.split(random.key(seed), (2, 3))
    weights = jnp.exp(scores) / jnp.exp(scores).sum()
    batches = jax.vmap(jax.vmap(worker_batch, in_axes=(0, None, None)), in_axes=(0, None, None))(
        keys, data, weights
    )
    sums = jax.vmap(noisy_sum, in_axes=(0, None))(keys[0], data)
    order = random.permutation(keys[1, 2], data.shape[0])
    picks = random.choice(keys[0, 0], data, (2,), axis=0)
    raw = random.split(random.PRNGKey(seed), (2, 2))
    return batches, sums, order, picks, random.key_data(keys), raw, random.bits(raw[1, 0], (2,))


def inputs(rng):
    data = rng.standard_normal((6, 4)).astype("float32")
    return 11, data, rng.standard_normal(6).astype("float32")
