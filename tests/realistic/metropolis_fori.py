import jax.numpy as jnp
from jax import lax, random


def log_target(theta, data):
    """A Gaussian likelihood with a Laplace prior on (mu, log_sigma)."""
    mu, log_sigma = theta[0], theta[1]
    sigma = jnp.exp(log_sigma)
    ll = -0.5 * jnp.sum(((data - mu) / sigma) ** 2) - data.shape[0] * log_sigma
    return ll - jnp.sum(jnp.abs(theta))


def metropolis(key, theta0, data, n_steps, scale=0.2):
    samples = jnp.zeros((n_steps, *theta0.shape), theta0.dtype)

    def body(i, state):
        key, theta, lp, n_acc, samples = state
        key, k1, k2 = random.split(key, 3)
        prop = theta + scale * random.normal(k1, theta.shape, theta.dtype)
        lp_prop = log_target(prop, data)
        log_u = jnp.log(random.uniform(k2, dtype=theta.dtype))
        accept = log_u < lp_prop - lp
        theta = lax.select(accept, prop, theta)
        lp = jnp.where(accept, lp_prop, lp)
        samples = samples.at[i].set(theta)
        return key, theta, lp, n_acc + accept.astype(jnp.int32), samples

    state = (key, theta0, log_target(theta0, data), jnp.int32(0), samples)
    _, theta, lp, n_acc, samples = lax.fori_loop(0, n_steps, body, state)
    return theta, lp, n_acc, samples


def run(key, theta0, data):
    keys = random.split(key, 2)
    chains = [metropolis(k, theta0, data, 30) for k in keys]
    thetas = jnp.stack([c[0] for c in chains])
    draws = jnp.concatenate([c[3][10:] for c in chains])
    rate = sum(c[2] for c in chains) / 60
    return thetas, draws.mean(axis=0), draws.std(axis=0), rate


def inputs(rng):
    data = (1.5 + 0.7 * rng.standard_normal(20)).astype("float32")
    return random.PRNGKey(3), jnp.zeros(2), data
