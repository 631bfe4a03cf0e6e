"""A small decoder-only transformer and its Adam training step, in plain JAX
(jax.numpy, jax.nn, jax.lax; optax-style Adam written out). `train_step` is clean;
`train_step_buggy` is the same step with two dtype bugs real codebases have had."""

import jax
import jax.numpy as jnp
from jax import lax

VOCAB, D, HEADS, LAYERS, SEQ = 32, 16, 2, 2, 8


def init_params(key):
    def dense(k, n_in, n_out):
        return jax.random.normal(k, (n_in, n_out), jnp.float32) / jnp.sqrt(n_in)

    keys = jax.random.split(key, 2 + 4 * LAYERS)
    params = {
        "embed": jax.random.normal(keys[0], (VOCAB, D), jnp.float32) * 0.02,
        "pos": jax.random.normal(keys[1], (SEQ, D), jnp.float32) * 0.02,
        "layers": [],
    }
    for i in range(LAYERS):
        k = keys[2 + 4 * i : 6 + 4 * i]
        params["layers"].append(
            {
                "qkv": dense(k[0], D, 3 * D),
                "out": dense(k[1], D, D),
                "up": dense(k[2], D, 4 * D),
                "down": dense(k[3], 4 * D, D),
                "ln1": jnp.ones(D, jnp.float32),
                "ln2": jnp.ones(D, jnp.float32),
            }
        )
    return params


def layer_norm(x, scale, eps=1e-6):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + eps) * scale


def attention(x, qkv, out):
    b, t, _ = x.shape
    q, k, v = jnp.split(x @ qkv, 3, axis=-1)
    heads = lambda a: a.reshape(b, t, HEADS, D // HEADS).transpose(0, 2, 1, 3)  # noqa: E731
    q, k, v = heads(q), heads(k), heads(v)
    logits = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(D // HEADS)
    causal = jnp.tril(jnp.ones((t, t), dtype=bool))
    logits = jnp.where(causal, logits, jnp.finfo(logits.dtype).min)
    y = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(logits, axis=-1), v)
    return y.transpose(0, 2, 1, 3).reshape(b, t, D) @ out


def block(x, p):
    x = x + attention(layer_norm(x, p["ln1"]), p["qkv"], p["out"])
    return x + jax.nn.gelu(layer_norm(x, p["ln2"]) @ p["up"]) @ p["down"]


def forward(params, tokens):
    x = params["embed"][tokens] + params["pos"][: tokens.shape[1]]
    for p in params["layers"]:
        x = block(x, p)
    return layer_norm(x, 1.0) @ params["embed"].T


def loss_fn(params, tokens, targets):
    logits = forward(params, tokens)
    logp = jax.nn.log_softmax(logits, axis=-1)
    nll = -jnp.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]
    return jnp.mean(nll)


def adam_init(params):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return {"m": zeros, "v": zeros, "count": jnp.zeros((), jnp.int32)}


def adam(grads, state, lr=3e-4, b1=0.9, b2=0.999, eps=1e-8):
    count = state["count"] + 1
    t = count.astype(jnp.float32)
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * jnp.square(g), state["v"], grads)
    c1, c2 = 1 - b1**t, 1 - b2**t
    updates = jax.tree.map(lambda m, v: -lr * (m / c1) / (jnp.sqrt(v / c2) + eps), m, v)
    return updates, {"m": m, "v": v, "count": count}


@jax.jit
def train_step(params, opt_state, tokens, targets):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
    grads = jax.tree.map(lambda g: jnp.clip(g, -1.0, 1.0), grads)
    updates, opt_state = adam(grads, opt_state)
    params = jax.tree.map(lambda p, u: p + u, params, updates)
    return params, opt_state, loss


def adam_buggy(grads, state, lr=3e-4, b1=0.9, b2=0.999, eps=1e-8):
    count = state["count"] + 1
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * jnp.square(g), state["v"], grads)
    warmup = jnp.minimum(1.0, count / 100.0)  # expect(train_step_buggy): implicit-promotion
    updates = jax.tree.map(lambda m, v: -lr * warmup * m / (jnp.sqrt(v) + eps), m, v)
    return updates, {"m": m, "v": v, "count": count, "scale": 1.0 * state["scale"]}


def train_step_buggy(params, opt_state, tokens, targets):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
    updates, opt_state = adam_buggy(grads, opt_state)
    opt_state["scale"] = opt_state["scale"] * loss  # expect(train_step_buggy): weak-flip
    params = jax.tree.map(lambda p, u: p + u, params, updates)
    return params, opt_state, loss
