"""Numerically careful building blocks with custom derivatives, as libraries define them:
jax.custom_jvp safe norm and log1pexp, jax.custom_vjp gradient clipping and gradient
reversal, jax.checkpoint around a residual block, lax.map over a batch, and the
Hessian-vector product of a loss with jax.jvp(jax.grad)."""

import functools

import jax
import jax.numpy as jnp
from jax import lax, nn


@jax.custom_jvp
def safe_norm(x):
    return jnp.sqrt(jnp.sum(x**2, axis=-1))


@safe_norm.defjvp
def _safe_norm_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    n = safe_norm(x)
    safe = jnp.where(n > 0, n, 1.0)
    return n, jnp.where(n > 0, jnp.sum(x * t, axis=-1) / safe, 0.0)


@jax.custom_jvp
def log1pexp(x):
    return jnp.where(x > 20.0, x, jnp.log1p(jnp.exp(jnp.minimum(x, 20.0))))


log1pexp.defjvps(lambda t, ans, x: t * nn.sigmoid(x))


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, bound):
    return x


def _clip_fwd(x, bound):
    return x, None


def _clip_bwd(bound, _, g):
    return (jnp.clip(g, -bound, bound),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


@jax.custom_vjp
def grad_reverse(x, scale):
    return x


def _rev_fwd(x, scale):
    return x, scale


def _rev_bwd(scale, g):
    return -scale * g, jnp.zeros_like(scale)


grad_reverse.defvjp(_rev_fwd, _rev_bwd)


@jax.checkpoint
def residual_block(w, h):
    return h + jnp.tanh(h @ w)


def loss(params, x):
    h = x
    for w in params["blocks"]:
        h = residual_block(w, h)
    h = clip_gradient(h, 0.1)
    feats = grad_reverse(h, jnp.asarray(0.5))
    return jnp.mean(log1pexp(feats @ params["out"])) + 0.01 * jnp.mean(safe_norm(h))


def run(params, x, v):
    value, grads = jax.value_and_grad(loss)(params, x)
    hvp = jax.jvp(lambda p: jax.grad(loss)(p, x), (params,), (v,))[1]
    norms = lax.map(lambda row: safe_norm(row), x)
    zero_grad = jax.grad(lambda z: safe_norm(z).sum())(jnp.zeros((2, 3)))
    return value, grads, hvp, norms, zero_grad


def inputs(rng):
    params = {
        "blocks": [(rng.standard_normal((4, 4)) * 0.4).astype("float32") for _ in range(2)],
        "out": rng.standard_normal((4, 1)).astype("float32"),
    }
    v = {
        "blocks": [rng.standard_normal((4, 4)).astype("float32") for _ in range(2)],
        "out": rng.standard_normal((4, 1)).astype("float32"),
    }
    return params, rng.standard_normal((5, 4)).astype("float32"), v
