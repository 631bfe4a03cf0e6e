"""A training state as a registered dataclass, Adam with bias correction written by
hand, a warmup + cosine learning-rate schedule, and a nested jitted loss. Clean."""

import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(
    jax.tree_util.register_dataclass,
    data_fields=["params", "mu", "nu", "step"],
    meta_fields=[],
)
@dataclasses.dataclass
class TrainState:
    params: dict
    mu: dict
    nu: dict
    step: jax.Array


def create(params):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return TrainState(params, zeros, zeros, jnp.zeros((), jnp.int32))


def schedule(step, base=1e-3, warmup=100, total=1000):
    t = step.astype(jnp.float32)
    warm = base * t / warmup
    progress = jnp.clip((t - warmup) / (total - warmup), 0.0, 1.0)
    cosine = 0.5 * base * (1 + jnp.cos(jnp.pi * progress))
    return lax.cond(step < warmup, lambda: warm, lambda: cosine)


@jax.jit
def loss_fn(params, x, y):
    pred = jnp.tanh(x @ params["w1"]) @ params["w2"]
    return jnp.mean(optax_like_huber(pred - y))


def optax_like_huber(err, delta=1.0):
    abs_err = jnp.abs(err)
    return jnp.where(abs_err < delta, 0.5 * err**2, delta * (abs_err - 0.5 * delta))


def adam_step(state, x, y, b1=0.9, b2=0.999, eps=1e-8):
    loss, grads = jax.value_and_grad(loss_fn)(state.params, x, y)
    step = state.step + 1
    mu = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state.mu, grads)
    nu = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, state.nu, grads)
    t = step.astype(jnp.float32)
    lr = schedule(step) * jnp.sqrt(1 - b2**t) / (1 - b1**t)
    params = jax.tree.map(lambda p, m, v: p - lr * m / (jnp.sqrt(v) + eps), state.params, mu, nu)
    return TrainState(params, mu, nu, step), loss


def lint_target():
    """The step with abstract arguments (shapes and dtypes, as jax.eval_shape gives)."""

    def make():
        k1, k2 = jax.random.split(jax.random.key(0))
        params = {"w1": jax.random.normal(k1, (3, 8)), "w2": jax.random.normal(k2, (8, 2))}
        return create(params), jnp.ones((4, 3)), jnp.zeros((4, 2))

    return jax.jit(adam_step), jax.eval_shape(make), {"state_argnums": 0}
