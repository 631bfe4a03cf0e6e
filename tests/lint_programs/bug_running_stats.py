"""Batch-norm running statistics and an exponential moving average of the weights,
kept in bfloat16 state and updated inside vmap, a checkpointed helper, a nested jit and
a scan. Planted bugs: every update mixes in float32 batch statistics, so each state leaf
comes back float32 (the next call recompiles), and a step counter that starts as a
Python float is carried through the scan."""

import jax
import jax.numpy as jnp
from jax import lax

DECAY = jnp.float32(0.99)


def batch_stats(x):
    return jnp.mean(x, axis=0), jnp.var(x, axis=0)


def _update_var(var, batch_var):
    return DECAY * var + (1 - DECAY) * batch_var  # expect: implicit-promotion, weak-flip


def _blend(m, b):
    return 0.9 * m + 0.1 * b  # expect: implicit-promotion, weak-flip


@jax.jit
def _ema(old, new):
    return old + (1 - DECAY) * (new - old)  # expect: implicit-promotion, weak-flip


def update(state, weights, batches):
    mean, var = batch_stats(batches[0])
    new_mean = jax.vmap(_blend)(state["mean"], mean)
    new_var = jax.checkpoint(_update_var)(state["var"], var)
    ema = jax.tree.map(_ema, state["ema"], weights)

    def count(carry, batch):
        return carry + batch.shape[0] * jnp.mean(batch), None  # expect: carry-change, weak-flip

    seen, _ = lax.scan(count, state["seen"], batches)
    new = {"mean": new_mean, "var": new_var, "ema": ema, "seen": seen}
    return new, (mean, var)


def lint_target():
    bf16 = jnp.bfloat16
    state = {
        "mean": jax.ShapeDtypeStruct((4,), bf16),
        "var": jax.ShapeDtypeStruct((4,), bf16),
        "ema": {"w": jax.ShapeDtypeStruct((4, 4), bf16)},
        "seen": 0.0,
    }
    weights = {"w": jax.ShapeDtypeStruct((4, 4), jnp.float32)}
    batches = jax.ShapeDtypeStruct((3, 8, 4), jnp.float32)
    return update, (state, weights, batches), {"state_argnums": 0}
