"""A deep ensemble with per-member typed keys: jax.random.key, keys vmapped into each
member's init and dropout, key arrays split inside lax.scan with the key in a NamedTuple
carry, random.fold_in with a traced step, random.clone and key_data on a batch of keys."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import lax, nn, random


class Carry(NamedTuple):
    key: jax.Array
    params: dict
    step: jax.Array


def init_member(key, d_in=3, d_h=6):
    k1, k2 = random.split(key)
    return {
        "w1": random.normal(k1, (d_in, d_h)) / jnp.sqrt(d_in),
        "w2": random.normal(k2, (d_h,)) / jnp.sqrt(d_h),
    }


def loss(params, key, x, y):
    h = nn.relu(x @ params["w1"])
    keep = random.bernoulli(key, 0.8, h.shape)
    h = jnp.where(keep, h / 0.8, 0.0)
    return jnp.mean((h @ params["w2"] - y) ** 2)


def train_member(key, x, y, steps=4, lr=0.05):
    key, init_key = random.split(key)
    params = init_member(init_key)

    def body(carry, _):
        k = random.fold_in(carry.key, carry.step)
        value, grads = jax.value_and_grad(loss)(carry.params, k, x, y)
        params = jax.tree_util.tree_map(lambda p, g: p - lr * g, carry.params, grads)
        next_key, _ = random.split(carry.key)
        return Carry(next_key, params, carry.step + 1), value

    final, losses = lax.scan(body, Carry(key, params, jnp.int32(0)), None, length=steps)
    return final.params, losses, random.key_data(final.key)


def run(seed, x, y):
    keys = random.split(random.key(seed), 3)
    params, losses, key_data = jax.vmap(train_member, in_axes=(0, None, None))(keys, x, y)
    preds = jax.vmap(lambda p: nn.relu(x @ p["w1"]) @ p["w2"])(params)
    twin = random.clone(keys[0])
    same = random.uniform(twin, (2,)) == random.uniform(keys[0], (2,))
    return params, losses, key_data, preds.mean(0), preds.std(0), same


def inputs(rng):
    x = rng.standard_normal((6, 3)).astype("float32")
    return 5, x, (x @ jnp.array([0.5, -1.0, 2.0])).astype(jnp.float32)
