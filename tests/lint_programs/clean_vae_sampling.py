"""A small VAE step heavy on jax.random and jax.nn: reparameterized Gaussian samples,
dropout, Bernoulli likelihood, categorical sampling and a KL term. Clean."""

import jax
import jax.numpy as jnp

D, Z, H = 12, 3, 16


def dense(p, x):
    return x @ p["w"] + p["b"]


def init(key):
    shapes = {"enc": (D, H), "mu": (H, Z), "logvar": (H, Z), "dec": (Z, H), "out": (H, D)}
    keys = dict(zip(shapes, jax.random.split(key, len(shapes)), strict=True))
    return {
        name: {"w": jax.random.normal(keys[name], s) / jnp.sqrt(s[0]), "b": jnp.zeros(s[1])}
        for name, s in shapes.items()
    }


def dropout(key, x, rate=0.1, train=True):
    if not train:
        return x
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)


def elbo(params, x, key):
    k_drop, k_eps = jax.random.split(key)
    h = jax.nn.gelu(dense(params["enc"], x))
    h = dropout(k_drop, h)
    mu, logvar = dense(params["mu"], h), dense(params["logvar"], h)
    eps = jax.random.normal(k_eps, mu.shape)
    z = mu + jnp.exp(0.5 * logvar) * eps
    logits = dense(params["out"], jax.nn.silu(dense(params["dec"], z)))
    rec = jnp.sum(x * jax.nn.log_sigmoid(logits) + (1 - x) * jax.nn.log_sigmoid(-logits), -1)
    kl = 0.5 * jnp.sum(jnp.exp(logvar) + mu**2 - 1.0 - logvar, -1)
    return jnp.mean(rec - kl)


def sample_tokens(key, logits, temperature=0.8, n=5):
    keys = jax.random.split(key, n)
    return jax.vmap(lambda k: jax.random.categorical(k, logits / temperature))(keys)


@jax.jit
def vae_step(params, x, key):
    k_step, k_sample = jax.random.split(key)
    value, grads = jax.value_and_grad(elbo)(params, x, k_step)
    params = jax.tree.map(lambda p, g: p + 1e-2 * g, params, grads)
    perm = jax.random.permutation(k_sample, x.shape[0])
    draws = sample_tokens(k_sample, jnp.log(jnp.mean(x[perm], 0) + 1e-3))
    u = jax.random.uniform(k_sample, (), minval=-1.0, maxval=1.0)
    return params, value, draws, u


def lint_target():
    """The step with abstract arguments (shapes and dtypes, as jax.eval_shape gives)."""

    def make():
        x = (jax.random.uniform(jax.random.key(1), (6, D)) > 0.5).astype(jnp.float32)
        return init(jax.random.key(0)), x

    return vae_step, (*jax.eval_shape(make), jax.random.key(2)), {"state_argnums": 0}
