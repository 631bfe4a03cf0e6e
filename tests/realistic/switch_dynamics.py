import jax.numpy as jnp
from jax import lax


def regime(x):
    """Which of three regimes a state is in: 0 below -1, 1 in between, 2 above 1."""
    return jnp.clip(jnp.digitize(x[0], jnp.array([-1.0, 1.0])), 0, 2)


def drift(x, k):
    return (
        lambda y: jnp.stack([y[1], -k * y[0]]),
        lambda y: jnp.stack([y[1], -0.5 * y[1] - y[0] ** 3]),
        lambda y: jnp.stack([-y[1], 2.0 * y[0] - k]),
    )


def simulate(x0, k, dt=0.05, steps=40):
    branches = drift(x0, k)

    def step(carry, t):
        x, counts = carry
        r = regime(x)
        dx = lax.switch(r, branches, x)
        x = x + dt * dx
        # friction only in regime 1, and a time-dependent forcing (a weak scalar)
        x = lax.cond(r == 1, lambda y: y * 0.99, lambda y: y, x)
        x = x.at[1].add(0.01 * jnp.sin(t))
        counts = counts.at[r].add(1)
        return (x, counts), (x, r)

    ts = jnp.arange(steps) * dt
    (x, counts), (path, regimes) = lax.scan(step, (x0, jnp.zeros(3, jnp.int32)), ts)
    return x, counts, path, regimes


def run(x0, k):
    x, counts, path, regimes = simulate(x0, k)
    energy = 0.5 * jnp.sum(path**2, axis=1)
    clipped = lax.switch(jnp.argmax(counts), [jnp.sin, jnp.cos, jnp.tanh], energy)
    return x, counts, regimes, clipped.max(), lax.switch(2, [jnp.sum, jnp.max, jnp.min], path)


def inputs(rng):
    return rng.standard_normal(2).astype("float32") * 1.5, 2.0
