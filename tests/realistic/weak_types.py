import jax.numpy as jnp
from jax import lax


def running_stats(xs):
    xs = jnp.asarray(xs)

    def body(i, state):
        count = state["count"] + 1
        delta = xs[i] - state["mean"]
        mean = state["mean"] + delta / count
        m2 = state["m2"] + delta * (xs[i] - mean)
        return {"count": count, "mean": mean, "m2": m2}

    init = {"count": 0, "mean": jnp.asarray(0.0), "m2": 0.0}
    state = lax.fori_loop(0, xs.shape[0], body, init)
    return state["mean"], state["m2"] / (state["count"] - 1), state["count"]


def ema(xs, decay=0.9):
    def step(avg, x):
        avg = decay * avg + (1 - decay) * x
        return avg, avg

    return lax.scan(step, jnp.zeros(()), xs)


def run(xs, scale, n=4):
    mean, var, count = running_stats(xs)
    avg, history = ema(xs)
    scaled = xs * 2 + 1
    halves = jnp.arange(n) * 0.5
    shifted = scale * 3 + jnp.float32(1.5)
    clipped = jnp.where(xs > 0, xs, 0)
    ratio = xs.sum() / xs.size
    ints = jnp.arange(5) // 2 + True
    steps = lax.fori_loop(0, n, lambda i, c: c + i, 0)
    total = lax.fori_loop(0, n, lambda i, c: c + i * scale, jnp.asarray(0.0))
    stats = (mean, var, count, avg, history)
    return stats, scaled, halves, shifted, clipped, ratio, ints, steps, total


def inputs(rng):
    return rng.standard_normal(9).astype("float32"), 1.25
