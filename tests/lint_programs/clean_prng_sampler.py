"""Samplers driven by jax.random: a random-walk Metropolis-Hastings chain in
lax.fori_loop whose key and position are the state (split each step), an annealed
Langevin step, Gumbel-max categorical draws and a top-p (nucleus) token sampler with a
legacy uint32 PRNGKey. Clean."""

import jax
import jax.numpy as jnp
from jax import lax

DIM, VOCAB = 3, 20


def log_density(x):
    return -0.5 * jnp.sum(x**2) - jnp.sum(jnp.log1p(jnp.exp(-x)))


def mh_chain(key, x, steps=16, scale=0.5):
    def body(i, state):
        key, x, accepted = state
        key, k_prop, k_acc = jax.random.split(key, 3)
        prop = x + scale * jax.random.normal(k_prop, x.shape)
        log_ratio = log_density(prop) - log_density(x)
        accept = jnp.log(jax.random.uniform(k_acc)) < log_ratio
        x = jnp.where(accept, prop, x)
        return key, x, accepted + accept.astype(jnp.int32)

    return lax.fori_loop(0, steps, body, (key, x, jnp.zeros((), jnp.int32)))


def langevin(key, x, step_size=1e-2, temperature=1.0):
    grad = jax.grad(log_density)(x)
    noise = jax.random.normal(key, x.shape)
    return x + step_size * grad + jnp.sqrt(2.0 * step_size * temperature) * noise


def gumbel_categorical(key, logits, n):
    g = jax.random.gumbel(key, (n, logits.shape[-1]))
    return jnp.argmax(logits + g, axis=-1)


def nucleus(key, logits, top_p=0.9, temperature=0.7):
    probs = jax.nn.softmax(logits / temperature)
    order = jnp.argsort(-probs)
    sorted_probs = probs[order]
    cumulative = jnp.cumsum(sorted_probs)
    keep_sorted = cumulative - sorted_probs < top_p
    keep = jnp.zeros_like(keep_sorted).at[order].set(keep_sorted)
    masked = jnp.where(keep, logits, -jnp.inf)
    return jax.random.categorical(key, masked / temperature)


@jax.jit
def sample(key, x, logits, seed):
    key, accepted_key = jax.random.split(key)
    key_out, x, accepted = mh_chain(accepted_key, x)
    x = langevin(jax.random.fold_in(key, 1), x)
    draws = gumbel_categorical(jax.random.fold_in(key, 2), logits, 5)
    token = nucleus(jax.random.PRNGKey(seed), logits)
    bits = jax.random.bits(jax.random.fold_in(key, 3), (2,))
    return key_out, x, {"accepted": accepted, "draws": draws, "token": token, "bits": bits}


def lint_target():
    key = jax.eval_shape(lambda: jax.random.key(0))
    x = jax.ShapeDtypeStruct((DIM,), jnp.float32)
    logits = jax.ShapeDtypeStruct((VOCAB,), jnp.float32)
    seed = jax.ShapeDtypeStruct((), jnp.int32)
    return sample, (key, x, logits, seed), {"state_argnums": (0, 1)}
