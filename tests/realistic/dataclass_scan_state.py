"""A leaky integrate-and-fire neuron population simulated with lax.scan over a dataclass
state registered with jax.tree_util.register_dataclass, parameters in a NamedTuple, a
per-step record as a dict, and a final summary with jax.tree_util.tree_map over the state."""

import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import lax


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class NeuronState:
    v: jax.Array
    refractory: jax.Array
    spikes: jax.Array
    trace: jax.Array


class Params(NamedTuple):
    tau: float
    threshold: jax.Array
    reset: float
    w: jax.Array


def step(params, state, current):
    drive = current + params.w @ state.trace
    v = state.v + (drive - state.v) / params.tau
    v = jnp.where(state.refractory > 0, params.reset, v)
    fired = v > params.threshold
    new = NeuronState(
        v=jnp.where(fired, params.reset, v),
        refractory=jnp.where(fired, 3, jnp.maximum(state.refractory - 1, 0)),
        spikes=state.spikes + fired.astype(jnp.int32),
        trace=0.8 * state.trace + fired,
    )
    return new, {"v": new.v, "fired": fired}


def run(currents, w, threshold):
    n = w.shape[0]
    params = Params(tau=4.0, threshold=threshold, reset=0.0, w=w)
    init = NeuronState(
        v=jnp.zeros(n),
        refractory=jnp.zeros(n, jnp.int32),
        spikes=jnp.zeros(n, jnp.int32),
        trace=jnp.zeros(n),
    )
    final, record = lax.scan(lambda s, c: step(params, s, c), init, currents)
    rates = final.spikes / currents.shape[0]
    summary = jax.tree_util.tree_map(lambda a: jnp.mean(a.astype(jnp.float32)), final)
    return final, record, rates, summary


def inputs(rng):
    currents = (1.5 * rng.uniform(size=(12, 5))).astype("float32")
    w = (0.3 * rng.standard_normal((5, 5))).astype("float32")
    return currents, w, jnp.full((5,), 0.6, jnp.float32)
