"""A mixed-precision training step: bfloat16 parameters in a registered dataclass
state, float32 gradients from a float32 copy, and a dynamic loss scale. Planted bugs:
the bfloat16 parameters updated with float32 gradients (promoted, and the state leaf
comes back float32), a loss scale kept as a Python float whose update makes it strongly
typed, and a requested float64 accumulator."""

import dataclasses
import functools

import jax
import jax.numpy as jnp

MIN_SCALE = jnp.float32(1.0)


@functools.partial(jax.tree_util.register_dataclass, data_fields=["params", "loss_scale"],
                   meta_fields=[])  # fmt: skip
@dataclasses.dataclass
class State:
    params: dict
    loss_scale: float


def model(params, x):
    h = jnp.tanh(x @ params["w1"].astype(jnp.float32))
    return h @ params["w2"].astype(jnp.float32)


def scaled_loss(master, x, y, scale):
    return scale * jnp.mean((model(master, x) - y) ** 2)


def grads_are_finite(grads):
    total = jnp.zeros((), jnp.float64)  # expect: x64-truncation
    for g in jax.tree.leaves(grads):
        total = total + jnp.sum(g)
    return jnp.isfinite(total)


def step(state, x, y, lr=1e-2):
    master = jax.tree.map(lambda p: p.astype(jnp.float32), state.params)
    grads = jax.grad(scaled_loss)(master, x, y, state.loss_scale)
    grads = jax.tree.map(lambda g: g / state.loss_scale, grads)
    finite = grads_are_finite(grads)
    params = jax.tree.map(
        lambda p, g: jnp.where(finite, p - lr * g, p),  # expect: implicit-promotion, weak-flip
        state.params,
        grads,
    )
    halved = jnp.maximum(state.loss_scale / 2, MIN_SCALE)
    scale = jnp.where(finite, state.loss_scale, halved)  # expect: weak-flip
    return State(params, scale)


def lint_target():
    params = {"w1": jnp.ones((4, 8), jnp.bfloat16), "w2": jnp.ones((8, 1), jnp.bfloat16)}
    state = State(params, 2.0**15)
    return jax.jit(step), (state, jnp.ones((2, 4)), jnp.ones((2, 1))), {"state_argnums": 0}
