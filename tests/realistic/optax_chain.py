"""An optax-style gradient transformation chain: NamedTuple states, init/update closures,
clipping by global norm, Adam, weight decay and a schedule, applied with tree_map."""

from typing import NamedTuple

import jax
import jax.numpy as jnp


class GradientTransformation(NamedTuple):
    init: callable
    update: callable


class ScaleByAdamState(NamedTuple):
    count: jax.Array
    mu: dict
    nu: dict


class EmptyState(NamedTuple):
    pass


def global_norm(updates):
    return jnp.sqrt(sum(jnp.sum(jnp.square(x)) for x in jax.tree_util.tree_leaves(updates)))


def clip_by_global_norm(max_norm):
    def init_fn(params):
        del params
        return EmptyState()

    def update_fn(updates, state, params=None):
        del params
        g_norm = global_norm(updates)
        trigger = jnp.squeeze(g_norm < max_norm)
        updates = jax.tree_util.tree_map(
            lambda t: jnp.where(trigger, t, (t / g_norm.astype(t.dtype)) * max_norm), updates
        )
        return updates, state

    return GradientTransformation(init_fn, update_fn)


def scale_by_adam(b1=0.9, b2=0.999, eps=1e-8):
    def init_fn(params):
        mu = jax.tree_util.tree_map(jnp.zeros_like, params)
        nu = jax.tree_util.tree_map(jnp.zeros_like, params)
        return ScaleByAdamState(count=jnp.zeros([], jnp.int32), mu=mu, nu=nu)

    def update_fn(updates, state, params=None):
        del params
        mu = jax.tree_util.tree_map(lambda g, t: (1 - b1) * g + b1 * t, updates, state.mu)
        nu = jax.tree_util.tree_map(lambda g, t: (1 - b2) * (g**2) + b2 * t, updates, state.nu)
        count_inc = state.count + jnp.array(1, dtype=jnp.int32)
        mu_hat = jax.tree_util.tree_map(
            lambda t: t / (1 - b1**count_inc).astype(t.dtype),  # expect: implicit-promotion
            mu,
        )
        nu_hat = jax.tree_util.tree_map(
            lambda t: t / (1 - b2**count_inc).astype(t.dtype),  # expect: implicit-promotion
            nu,
        )
        updates = jax.tree_util.tree_map(lambda m, v: m / (jnp.sqrt(v + 0.0) + eps), mu_hat, nu_hat)
        return updates, ScaleByAdamState(count=count_inc, mu=mu, nu=nu)

    return GradientTransformation(init_fn, update_fn)


def add_decayed_weights(weight_decay):
    def init_fn(params):
        del params
        return EmptyState()

    def update_fn(updates, state, params):
        updates = jax.tree_util.tree_map(lambda g, p: g + weight_decay * p, updates, params)
        return updates, state

    return GradientTransformation(init_fn, update_fn)


def scale_by_schedule(schedule):
    def init_fn(params):
        del params
        return jnp.zeros([], jnp.int32)

    def update_fn(updates, state, params=None):
        del params
        step_size = schedule(state)
        updates = jax.tree_util.tree_map(lambda g: jnp.array(step_size, dtype=g.dtype) * g, updates)
        return updates, state + 1

    return GradientTransformation(init_fn, update_fn)


def chain(*transforms):
    def init_fn(params):
        return tuple(t.init(params) for t in transforms)

    def update_fn(updates, state, params=None):
        new_state = []
        for s, t in zip(state, transforms, strict=True):
            updates, s = t.update(updates, s, params)
            new_state.append(s)
        return updates, tuple(new_state)

    return GradientTransformation(init_fn, update_fn)


def warmup_cosine(init_value, peak, warmup_steps, decay_steps):
    def schedule(count):
        warm = init_value + (peak - init_value) * count / warmup_steps  # expect: implicit-promotion
        progress = jnp.clip((count - warmup_steps) / (decay_steps - warmup_steps), 0.0, 1.0)
        cosine = 0.5 * peak * (1 + jnp.cos(jnp.pi * progress))
        return jnp.where(count < warmup_steps, warm, cosine)

    return schedule


def apply_updates(params, updates):
    return jax.tree_util.tree_map(
        lambda p, u: jnp.asarray(p + u).astype(jnp.asarray(p).dtype), params, updates
    )


def loss_fn(params, x, y):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    pred = h @ params["w2"]
    return jnp.mean((pred - y) ** 2)


def run(params, x, y):
    opt = chain(
        clip_by_global_norm(1.0),
        add_decayed_weights(1e-4),
        scale_by_adam(),
        scale_by_schedule(lambda c: -warmup_cosine(0.0, 1e-2, 2, 10)(c)),
    )
    state = opt.init(params)
    losses = []
    for _ in range(3):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, state = opt.update(grads, state, params)
        params = apply_updates(params, updates)
        losses.append(loss)
    return params, state, jnp.stack(losses), global_norm(params)


def inputs(rng):
    params = {
        "w1": rng.standard_normal((4, 8)).astype("float32") * 0.5,
        "b1": jnp.zeros(8),
        "w2": rng.standard_normal((8, 2)).astype("float32") * 0.5,
    }
    x = rng.standard_normal((16, 4)).astype("float32")
    y = rng.standard_normal((16, 2)).astype("float32")
    return params, x, y
