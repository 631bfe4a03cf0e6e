"""A physics-informed regression step: jax.value_and_grad with has_aux=True returning
metrics, jax.grad with argnums=(0, 2), a custom_jvp safe-norm and a custom_jvp soft clip
with nondiff_argnums, a custom_vjp straight-through rounding, and jax.jvp through them."""

from functools import partial

import jax
import jax.numpy as jnp


@jax.custom_jvp
def safe_norm(x):
    return jnp.sqrt(jnp.sum(x**2, axis=-1))


@safe_norm.defjvp
def _safe_norm_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    n = safe_norm(x)
    denom = jnp.where(n > 0, n, 1.0)
    return n, jnp.sum(x * t, axis=-1) / denom


@partial(jax.custom_jvp, nondiff_argnums=(1,))
def soft_clip(x, limit):
    return limit * jnp.tanh(x / limit)


@soft_clip.defjvp
def _soft_clip_jvp(limit, primals, tangents):
    (x,), (t,) = primals, tangents
    y = soft_clip(x, limit)
    return y, t * (1 - (y / limit) ** 2)


@jax.custom_vjp
def ste_round(x):
    return jnp.round(x)


ste_round.defvjp(lambda x: (jnp.round(x), None), lambda _, g: (g,))


def loss(params, x, y):
    pred = soft_clip(x @ params["w"] + params["b"], 3.0)
    q = ste_round(pred * 4.0) / 4.0
    reg = jnp.mean(safe_norm(params["w"].T))
    value = jnp.mean((q - y) ** 2) + 0.01 * reg
    return value, {"reg": reg, "max_pred": jnp.max(pred)}


def run(params, x, y, lr):
    (value, aux), grads = jax.value_and_grad(loss, has_aux=True)(params, x, y)
    gp, gy = jax.grad(lambda p, x, y: loss(p, x, y)[0], argnums=(0, 2))(params, x, y)
    new = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    zero_grad = jax.grad(lambda v: safe_norm(v))(jnp.zeros(3))
    _, tangent = jax.jvp(lambda v: soft_clip(v, 2.0), (x[:, 0],), (jnp.ones_like(x[:, 0]),))
    g_aux, metrics = jax.grad(loss, has_aux=True)(params, x, y)
    return value, aux, grads, gp, gy, new, zero_grad, tangent, g_aux, metrics


def inputs(rng):
    params = {"w": rng.standard_normal((3, 2)).astype("float32"), "b": jnp.zeros(2)}
    x = rng.standard_normal((6, 3)).astype("float32")
    return params, x, rng.standard_normal((6, 2)).astype("float32"), 0.1
