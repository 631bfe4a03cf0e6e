"""A Metropolis-Hastings chain and a bfloat16 attention scorer with planted bugs: the
bool acceptance added to an int32 counter, a bfloat16 query meeting float32 keys, and
a weak Python-float temperature state that comes back strong."""

import jax
import jax.numpy as jnp
from jax import lax


def log_density(x):
    return -0.5 * jnp.sum(x**2)


def mh_chain(key, x, steps=8):
    def body(i, state):
        key, x, accepted = state
        key, k_prop, k_acc = jax.random.split(key, 3)
        prop = x + 0.5 * jax.random.normal(k_prop, x.shape)
        accept = jnp.log(jax.random.uniform(k_acc)) < log_density(prop) - log_density(x)
        return key, jnp.where(accept, prop, x), accepted + accept  # expect: implicit-promotion

    return lax.fori_loop(0, steps, body, (key, x, jnp.zeros((), jnp.int32)))


def score(query, keys, temperature):
    logits = keys @ query / temperature  # expect: implicit-promotion
    return jax.nn.softmax(logits)


@jax.jit
def sample(key, temperature, x, query, keys):
    key, sub = jax.random.split(key)
    key_out, x, accepted = mh_chain(sub, x)
    probs = score(query.astype(jnp.bfloat16), keys, temperature)
    token = jax.random.categorical(key, jnp.log(probs))
    temperature = jnp.maximum(temperature * 0.99, jnp.float32(0.1))  # expect: weak-flip
    return key_out, temperature, {"x": x, "accepted": accepted, "token": token}


def lint_target():
    key = jax.eval_shape(lambda: jax.random.key(0))
    x = jax.ShapeDtypeStruct((3,), jnp.float32)
    query = jax.ShapeDtypeStruct((8,), jnp.float32)
    keys = jax.ShapeDtypeStruct((5, 8), jnp.float32)
    return sample, (key, 1.0, x, query, keys), {"state_argnums": (0, 1)}
