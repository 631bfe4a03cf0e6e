import jax.numpy as jnp
from jax import lax, random


def log_prob(x):
    return -0.5 * jnp.sum(x**2) - 0.1 * jnp.sum(x**4)


def grad_log_prob(x):
    return -x - 0.4 * x**3


def random_walk_metropolis(key, x0, n_steps, step_size=0.5):
    def body(i, state):
        key, x, lp, accepted = state
        key, k_prop, k_accept = random.split(key, 3)
        proposal = x + step_size * random.normal(k_prop, x.shape, x.dtype)
        lp_prop = log_prob(proposal)
        accept = jnp.log(random.uniform(k_accept)) < lp_prop - lp
        x = jnp.where(accept, proposal, x)
        lp = jnp.where(accept, lp_prop, lp)
        return key, x, lp, accepted + accept

    init = (key, x0, log_prob(x0), 0)
    _, x, lp, accepted = lax.fori_loop(0, n_steps, body, init)
    return x, lp, accepted / n_steps


def langevin(key, x0, n_steps, eps=0.1):
    def step(x, key):
        noise = random.normal(key, x.shape, x.dtype)
        x = x + 0.5 * eps**2 * grad_log_prob(x) + eps * noise
        return x, x

    keys = random.split(key, n_steps)
    x, trace = lax.scan(step, x0, keys)
    return x, jnp.mean(trace, axis=0), jnp.var(trace, axis=0)


def run(key, x0):
    k1, k2 = random.split(key)
    rwm = random_walk_metropolis(k1, x0, 40)
    mala = langevin(k2, x0, 25)
    return rwm, mala


def inputs(rng):
    return random.PRNGKey(42), rng.standard_normal(3).astype("float32")
