"""PPO actor-critic: GAE with a reverse lax.scan, clipped surrogate objective with
log_softmax + take_along_axis, value clipping, entropy bonus, and one gradient step."""

import functools

import jax
import jax.numpy as jnp
from jax import lax, nn


def compute_gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    def step(carry, t):
        gae, next_value = carry
        reward, value, done = t
        delta = reward + gamma * next_value * (1.0 - done) - value
        gae = delta + gamma * lam * (1.0 - done) * gae
        return (gae, value), gae

    _, advantages = lax.scan(
        step,
        (jnp.zeros_like(last_value), last_value),
        (rewards, values, dones),
        reverse=True,
    )
    return advantages, advantages + values


def policy_apply(params, obs):
    h = nn.relu(obs @ params["w"] + params["b"])
    logits = h @ params["pi"]
    value = (h @ params["v"]).squeeze(-1)
    return logits, value


def ppo_loss(
    params,
    obs,
    actions,
    old_log_probs,
    old_values,
    advantages,
    returns,
    clip_eps=0.2,
    vf_coef=0.5,
    ent_coef=0.01,
):
    logits, values = policy_apply(params, obs)
    log_probs = nn.log_softmax(logits)
    log_prob = jnp.take_along_axis(log_probs, actions[..., None], axis=-1).squeeze(-1)
    ratio = jnp.exp(log_prob - old_log_probs)
    adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    surr1 = ratio * adv
    surr2 = jnp.clip(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * adv
    policy_loss = -jnp.minimum(surr1, surr2).mean()
    values_clipped = old_values + (values - old_values).clip(-clip_eps, clip_eps)
    value_loss = (
        0.5 * jnp.maximum(jnp.square(values - returns), jnp.square(values_clipped - returns)).mean()
    )
    entropy = -jnp.sum(nn.softmax(logits) * log_probs, axis=-1).mean()
    approx_kl = ((ratio - 1) - jnp.log(ratio)).mean()
    clip_frac = jnp.mean((jnp.abs(ratio - 1.0) > clip_eps).astype(jnp.float32))
    total = policy_loss + vf_coef * value_loss - ent_coef * entropy
    return total, {
        "policy": policy_loss,
        "value": value_loss,
        "entropy": entropy,
        "kl": approx_kl,
        "clip_frac": clip_frac,
    }


@functools.partial(jax.jit, static_argnames=("lr",))
def update(params, batch, lr=3e-4):
    grad_fn = jax.value_and_grad(ppo_loss, has_aux=True)
    (loss, aux), grads = grad_fn(params, *batch)
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return params, loss, aux


def run(params, obs, actions, rewards, dones, behaviour_logits):
    _, values = policy_apply(params, obs)
    values = lax.stop_gradient(values)
    last_value = values[-1]
    advantages, returns = compute_gae(rewards, values, dones, last_value)
    old_log_probs = jnp.take_along_axis(nn.log_softmax(behaviour_logits), actions[:, None], axis=1)[
        :, 0
    ]
    batch = (obs, actions, old_log_probs, values, advantages, returns)
    params, loss, aux = update(params, batch)
    return params, loss, aux, advantages


def inputs(rng):
    T, obs_dim, hidden, n_actions = 12, 5, 16, 4
    params = {
        "w": (rng.standard_normal((obs_dim, hidden)) * 0.3).astype("float32"),
        "b": jnp.zeros(hidden),
        "pi": (rng.standard_normal((hidden, n_actions)) * 0.1).astype("float32"),
        "v": (rng.standard_normal((hidden, 1)) * 0.1).astype("float32"),
    }
    obs = rng.standard_normal((T, obs_dim)).astype("float32")
    actions = jnp.asarray(rng.integers(0, n_actions, T), dtype=jnp.int32)
    rewards = rng.standard_normal(T).astype("float32")
    dones = (rng.random(T) < 0.2).astype("float32")
    behaviour_logits = rng.standard_normal((T, n_actions)).astype("float32")
    return params, obs, actions, rewards, dones, behaviour_logits
