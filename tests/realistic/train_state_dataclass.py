"""A flax-style TrainState written with `from __future__ import annotations`: a frozen
dataclass registered with jax.tree_util.register_dataclass whose static fields (the
optimiser name, the number of layers) are meta fields, `.replace()` via dataclasses.replace,
apply_gradients with jax.tree.map, and a training step over it. (The apply function stays
out of the returned state: a function in a treedef prints with its address.)"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
from jax import nn


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class TrainState:
    step: jax.Array
    params: dict
    momentum: dict
    optimizer: str = dataclasses.field(default="momentum", metadata={"static": True})
    n_layers: int = dataclasses.field(default=2, metadata={"static": True})

    def apply_gradients(self, grads: Any, lr: float, beta: float = 0.9) -> TrainState:
        momentum = jax.tree.map(lambda m, g: beta * m + g, self.momentum, grads)
        params = jax.tree.map(lambda p, m: p - lr * m, self.params, momentum)
        return dataclasses.replace(self, step=self.step + 1, params=params, momentum=momentum)


def mlp(params: dict, x: jax.Array) -> jax.Array:
    h = nn.relu(x @ params["w1"] + params["b1"])
    return h @ params["w2"]


def train_step(state: TrainState, x: jax.Array, y: jax.Array) -> tuple[TrainState, jax.Array]:
    def loss_fn(params: dict) -> jax.Array:
        logits = mlp(params, x)
        return -jnp.mean(jnp.sum(nn.log_softmax(logits) * nn.one_hot(y, logits.shape[-1]), -1))

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads, lr=0.1), loss


def run(params: dict, x: jax.Array, y: jax.Array) -> tuple[Any, ...]:
    state = TrainState(
        step=jnp.zeros((), jnp.int32),
        params=params,
        momentum=jax.tree.map(jnp.zeros_like, params),
    )
    losses = []
    for _ in range(2):
        state, loss = train_step(state, x, y)
        losses.append(loss)
    acc = jnp.mean(jnp.argmax(mlp(state.params, x), -1) == y)
    return state, jnp.stack(losses), acc, state.n_layers, state.optimizer == "momentum"


def inputs(rng: Any) -> tuple[Any, ...]:
    params = {
        "w1": (0.5 * rng.standard_normal((4, 8))).astype("float32"),
        "b1": jnp.zeros(8, jnp.float32),
        "w2": (0.5 * rng.standard_normal((8, 3))).astype("float32"),
    }
    x = rng.standard_normal((10, 4)).astype("float32")
    return params, x, jnp.asarray(rng.integers(0, 3, size=(10,)), dtype=jnp.int32)
