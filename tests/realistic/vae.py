import jax
import jax.numpy as jnp
from jax import nn, random


def encoder(p, x):
    h = nn.softplus(x @ p["we"] + p["be"])
    mu, logvar = jnp.split(h @ p["wz"], 2, axis=-1)
    return mu, jnp.clip(logvar, -5.0, 5.0)


def decoder(p, z):
    return nn.sigmoid(nn.elu(z @ p["wd"]) @ p["wo"])


def elbo(p, x, key):
    mu, logvar = encoder(p, x)
    eps = random.normal(key, mu.shape, dtype=mu.dtype)
    z = mu + jnp.exp(0.5 * logvar) * eps
    xr = decoder(p, z)
    bce = -jnp.sum(x * jnp.log(xr + 1e-7) + (1 - x) * jnp.log1p(-xr + 1e-7), axis=-1)
    kl = -0.5 * jnp.sum(1 + logvar - mu**2 - jnp.exp(logvar), axis=-1)
    return jnp.mean(bce + kl), (bce, kl)


def run(p, x, key):
    k1, k2 = random.split(key)
    (loss, (bce, kl)), g = jax.value_and_grad(elbo, has_aux=True)(p, x, k1)
    gnorm = jnp.sqrt(sum(jnp.sum(v * v) for v in jax.tree_util.tree_leaves(g)))
    samples = decoder(p, random.normal(k2, (3, p["wd"].shape[0])))
    return loss, bce.max(), kl.min(), gnorm, samples.round(3), jnp.argsort(kl)


def inputs(rng):
    p = {
        "we": (rng.standard_normal((6, 8)) * 0.3).astype("float32"),
        "be": jnp.zeros(8),
        "wz": (rng.standard_normal((8, 4)) * 0.3).astype("float32"),
        "wd": (rng.standard_normal((2, 8)) * 0.3).astype("float32"),
        "wo": (rng.standard_normal((8, 6)) * 0.3).astype("float32"),
    }
    x = (rng.uniform(size=(5, 6)) > 0.5).astype("float32")
    return p, x, random.PRNGKey(3)
