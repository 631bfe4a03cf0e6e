"""float16 training with a dynamic loss scale, as in mixed-precision recipes: f16 params
and activations, f32 master weights, jnp.finfo(float16) for the overflow guard, the scale
halved on non-finite grads and doubled after a run of good steps, all inside lax.fori_loop
with a dict carry mixing f16, f32 and int32 leaves."""

import jax
import jax.numpy as jnp
from jax import lax, nn


def forward(params16, x16):
    h = nn.gelu(x16 @ params16["w1"])
    return (h @ params16["w2"]).astype(jnp.float32)


def loss_fn(params16, x16, y, scale):
    return jnp.mean((forward(params16, x16) - y) ** 2) * scale


def train(master, x, y, steps=5, lr=0.05):
    x16 = x.astype(jnp.float16)
    f16_max = jnp.finfo(jnp.float16).max

    def body(i, carry):
        params16 = jax.tree_util.tree_map(lambda p: p.astype(jnp.float16), carry["master"])
        scale = carry["scale"]
        grads = jax.grad(loss_fn)(params16, x16, y, scale.astype(jnp.float16))
        grads = jax.tree_util.tree_map(lambda g: g.astype(jnp.float32) / scale, grads)
        finite = jnp.all(
            jnp.stack([jnp.all(jnp.isfinite(g)) for g in jax.tree_util.tree_leaves(grads)])
        )
        master = jax.tree_util.tree_map(
            lambda p, g: jnp.where(finite, p - lr * g, p), carry["master"], grads
        )
        good = jnp.where(finite, carry["good"] + 1, 0)
        grow = good >= 2
        scale = jnp.where(finite, jnp.where(grow, scale * 2.0, scale), scale / 2.0)
        scale = jnp.minimum(scale, f16_max.astype(jnp.float32))
        return {
            "master": master,
            "scale": scale,
            "good": jnp.where(grow, 0, good),
            "skipped": carry["skipped"] + (~finite).astype(jnp.int32),
        }

    init = {
        "master": master,
        "scale": jnp.float32(2.0**14),
        "good": jnp.int32(0),
        "skipped": jnp.int32(0),
    }
    return lax.fori_loop(0, steps, body, init)


def run(master, x, y):
    state = train(master, x, y)
    params16 = jax.tree_util.tree_map(lambda p: p.astype(jnp.float16), state["master"])
    pred16 = forward(params16, x.astype(jnp.float16))
    tiny = jnp.finfo(jnp.float16).tiny, jnp.finfo(jnp.float16).eps
    return state, pred16, tiny, jnp.float16(1e4) * jnp.float16(10.0)


def inputs(rng):
    master = {
        "w1": (0.5 * rng.standard_normal((3, 6))).astype("float32"),
        "w2": (0.5 * rng.standard_normal((6, 2))).astype("float32"),
    }
    x = rng.standard_normal((8, 3)).astype("float32")
    return master, x, rng.standard_normal((8, 2)).astype("float32")
