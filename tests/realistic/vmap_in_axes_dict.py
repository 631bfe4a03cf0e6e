"""Per-example gradients for a linear model with vmap over dict in_axes (weights shared,
batch split), out_axes to put the batch last, vmap with axis_name and lax.pmean / psum for a
batch-norm statistic, nested vmap for pairwise distances, and jax.vmap(..., in_axes=(None, 0))
over a dict pytree of inputs."""

import jax
import jax.numpy as jnp
from jax import lax


def loss(params, example):
    pred = example["x"] @ params["w"] + params["b"]
    return 0.5 * (pred - example["y"]) ** 2


def normalise(x):
    mean = lax.pmean(x, axis_name="batch")
    var = lax.pmean((x - mean) ** 2, axis_name="batch")
    count = lax.psum(1, axis_name="batch")
    return (x - mean) / jnp.sqrt(var + 1e-5), count


def run(params, xs, ys):
    batch = {"x": xs, "y": ys}
    grads = jax.vmap(jax.grad(loss), in_axes=({"w": None, "b": None}, {"x": 0, "y": 0}))(
        params, batch
    )
    per_ex = jax.vmap(loss, in_axes=(None, 0))(params, batch)
    grads_t = jax.vmap(jax.grad(loss), in_axes=(None, 0), out_axes={"w": 1, "b": 0})(params, batch)
    normed, count = jax.vmap(normalise, axis_name="batch")(xs)
    dist = jax.vmap(jax.vmap(lambda a, b: jnp.sum((a - b) ** 2), (None, 0)), (0, None))(xs, xs)
    scaled = jax.vmap(lambda s, x: s * x, in_axes=(0, 1), out_axes=1)(
        jnp.arange(1.0, xs.shape[1] + 1), xs
    )
    return grads, per_ex, grads_t, normed, count, dist, scaled


def inputs(rng):
    params = {"w": rng.standard_normal((3,)).astype("float32"), "b": jnp.float32(0.5)}
    xs = rng.standard_normal((5, 3)).astype("float32")
    return params, xs, rng.standard_normal((5,)).astype("float32")
