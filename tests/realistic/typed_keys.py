"""The new-style PRNG API: typed keys from jax.random.key, random.fold_in with the step
number inside a lax.fori_loop training-noise loop, random.key_data / wrap_key_data round
trips, vmapped splits, and key arrays carried through lax.scan."""

import jax
import jax.numpy as jnp
from jax import lax, random


def noisy_sgd(key, w, x, y, steps=10, lr=0.1, sigma=0.01):
    def body(step, w):
        k = random.fold_in(key, step)
        grad = x.T @ (x @ w - y) / x.shape[0]
        return w - lr * grad + sigma * random.normal(k, w.shape)

    return lax.fori_loop(0, steps, body, w)


def dropout_masks(key, n, shape, rate=0.25):
    keys = random.split(key, n)
    return jax.vmap(lambda k: random.bernoulli(k, 1.0 - rate, shape))(keys)


def run(seed, w, x, y):
    key = random.key(seed)
    k1, k2, k3 = random.split(key, 3)
    w = noisy_sgd(k1, w, x, y)
    masks = dropout_masks(k2, 3, (4,))
    data = random.key_data(k3)
    again = random.wrap_key_data(data)
    same = random.uniform(again, (2,)) == random.uniform(k3, (2,))

    def step(key, _):
        key, sub = random.split(key)
        return key, random.randint(sub, (), 0, 10)

    last, draws = lax.scan(step, k3, None, length=5)
    return w, masks, data, same, draws, random.key_data(last), random.permutation(k1, 6)


def inputs(rng):
    x = rng.standard_normal((8, 3)).astype("float32")
    return 7, jnp.zeros(3), x, x @ jnp.array([1.0, -2.0, 0.5])
