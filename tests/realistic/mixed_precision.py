import jax
import jax.numpy as jnp
from jax import lax, nn


def forward(params, x):
    h = lax.dot_general(
        x, params["w1"], (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32
    )
    h = nn.relu(h).astype(jnp.bfloat16)
    out = jnp.matmul(h, params["w2"], preferred_element_type=jnp.float32) + params["b2"]
    return h, out


def run(master, x, y, loss_scale=2.0**10, lr=1e-2):
    params = jax.tree_util.tree_map(lambda p: p.astype(jnp.bfloat16), master)
    xb = x.astype(jnp.bfloat16)
    h, out = forward(params, xb)
    err = out - y
    loss = jnp.mean(err**2)
    g_out = (2.0 / err.size) * err * loss_scale
    g_out16 = g_out.astype(jnp.bfloat16)
    g_w2 = jnp.einsum("bh,bo->ho", h, g_out16, preferred_element_type=jnp.float32)
    g_h = jnp.dot(g_out16, params["w2"].T) * (h > 0)
    g_w1 = jnp.dot(xb.T, g_h, preferred_element_type=jnp.float32)
    grads = {"w1": g_w1, "w2": g_w2, "b2": jnp.sum(g_out, axis=0)}
    grads = jax.tree_util.tree_map(lambda g: g / loss_scale, grads)
    finite = jnp.all(jnp.array([jnp.isfinite(g).all() for g in jax.tree_util.tree_leaves(grads)]))
    new_master = jax.tree_util.tree_map(
        lambda p, g: jnp.where(finite, p - lr * g.astype(p.dtype), p), master, grads
    )
    return loss, out.astype(jnp.bfloat16), new_master, finite


def inputs(rng):
    master = {
        "w1": (0.3 * rng.standard_normal((4, 8))).astype("float32"),
        "w2": (0.3 * rng.standard_normal((8, 2))).astype("float32"),
        "b2": jax.numpy.zeros(2, jnp.float32),
    }
    return master, rng.standard_normal((5, 4)).astype("float32"), rng.standard_normal((5, 2))
