"""Differentially-private SGD: per-example gradients with jax.vmap(jax.grad), per-example
clipping to a norm bound, Gaussian noise, then an EMA of the parameters with
lax.stop_gradient and a Polyak-averaged target network (DQN-style TD loss)."""

import jax
import jax.numpy as jnp
from jax import lax, nn, random


def q_network(params, obs):
    h = nn.elu(obs @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def td_loss(params, target_params, obs, action, reward, next_obs, done, gamma=0.99):
    q = q_network(params, obs)
    q_sa = q[action]
    next_q = q_network(target_params, next_obs)
    target = reward + gamma * (1.0 - done) * jnp.max(next_q)
    target = lax.stop_gradient(target)
    return optax_huber(q_sa - target)


def optax_huber(err, delta=1.0):
    abs_err = jnp.abs(err)
    quadratic = jnp.minimum(abs_err, delta)
    linear = abs_err - quadratic
    return 0.5 * quadratic**2 + delta * linear


def clip_per_example(grads, l2_norm_clip):
    leaves = jax.tree_util.tree_leaves(grads)
    norms = jnp.sqrt(sum(jnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1) for g in leaves))
    factors = jnp.minimum(1.0, l2_norm_clip / (norms + 1e-6))
    clipped = jax.tree_util.tree_map(
        lambda g: g * factors.reshape((-1,) + (1,) * (g.ndim - 1)), grads
    )
    return clipped, norms


def private_grad(params, target_params, batch, key, l2_norm_clip=1.0, noise_multiplier=1.1):
    per_example = jax.vmap(jax.grad(td_loss), in_axes=(None, None, 0, 0, 0, 0, 0))(
        params, target_params, *batch
    )
    clipped, norms = clip_per_example(per_example, l2_norm_clip)
    summed = jax.tree_util.tree_map(lambda g: g.sum(axis=0), clipped)
    leaves, treedef = jax.tree_util.tree_flatten(summed)
    keys = random.split(key, len(leaves))
    noised = [
        g + l2_norm_clip * noise_multiplier * random.normal(k, g.shape, g.dtype)
        for g, k in zip(leaves, keys, strict=True)
    ]
    batch_size = batch[0].shape[0]
    grads = jax.tree_util.tree_map(lambda g: g / batch_size, treedef.unflatten(noised))
    return grads, norms


def ema_update(ema, params, decay):
    return jax.tree_util.tree_map(
        lambda e, p: decay * e + (1.0 - decay) * lax.stop_gradient(p), ema, params
    )


def run(params, batch, key, lr=0.05, tau=0.005):
    target_params = params
    ema = jax.tree_util.tree_map(jnp.copy, params)
    step = jnp.asarray(0)
    norms = None
    for k in random.split(key, 3):
        grads, norms = private_grad(params, target_params, batch, k)
        params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
        step += 1
        decay = jnp.minimum(0.999, (1.0 + step) / (10.0 + step))
        ema = ema_update(ema, params, decay)
        target_params = jax.tree_util.tree_map(
            lambda t, p: (1 - tau) * t + tau * p, target_params, params
        )
    return params, ema, target_params, norms, step


def inputs(rng):
    obs_dim, hidden, n_actions, b = 4, 8, 3, 6
    params = {
        "w1": (rng.standard_normal((obs_dim, hidden)) * 0.5).astype("float32"),
        "b1": jnp.zeros(hidden),
        "w2": (rng.standard_normal((hidden, n_actions)) * 0.5).astype("float32"),
        "b2": jnp.zeros(n_actions),
    }
    batch = (
        rng.standard_normal((b, obs_dim)).astype("float32"),
        rng.integers(0, n_actions, b).astype("int32"),
        rng.standard_normal(b).astype("float32"),
        rng.standard_normal((b, obs_dim)).astype("float32"),
        (rng.random(b) < 0.3).astype("float32"),
    )
    return params, batch, random.PRNGKey(5)
