import jax.numpy as jnp
from jax import lax, random


def cosine_schedule(t, s=0.008):
    f = jnp.cos((t + s) / (1 + s) * jnp.pi / 2) ** 2
    return f / jnp.cos(s / (1 + s) * jnp.pi / 2) ** 2


def denoiser(x, t, w):
    emb = jnp.stack([jnp.sin(t * 10.0), jnp.cos(t * 10.0)])
    return jnp.tanh(x @ w[:-2] + emb @ w[-2:])


def run(x0, w, key, steps=8):
    ts = jnp.linspace(1.0, 0.0, steps + 1, dtype=jnp.float32)

    def body(carry, i):
        x, key = carry
        key, sub = random.split(key)
        t, t_next = ts[i], ts[i + 1]
        a, a_next = cosine_schedule(t), cosine_schedule(t_next)
        eps = denoiser(x, t, w)
        x0_hat = (x - jnp.sqrt(1 - a) * eps) / jnp.sqrt(a)
        x0_hat = jnp.clip(x0_hat, -3, 3)
        noise = random.normal(sub, x.shape, x.dtype) * jnp.where(i < steps - 1, 0.1, 0.0)
        x = jnp.sqrt(a_next) * x0_hat + jnp.sqrt(1 - a_next) * eps + noise
        return (x, key), jnp.abs(x).mean()

    (x, _), traj = lax.scan(body, (x0, key), jnp.arange(steps))
    return x, traj, jnp.isfinite(x).all()


def inputs(rng):
    x0 = rng.standard_normal((4, 3)).astype("float32")
    w = (rng.standard_normal((5, 3)) * 0.3).astype("float32")
    return x0, w, random.key(7)
