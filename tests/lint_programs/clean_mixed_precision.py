"""Mixed-precision training done right: float32 master weights cast to bfloat16 for the
forward pass, bfloat16 matmuls accumulating in float32 (preferred_element_type), a
bfloat16 activation times float32 weights through jax.lax.dot_general with an explicit
accumulation type, and a dynamic loss scale kept as a float32 array. Clean."""

import jax
import jax.numpy as jnp
from jax import lax


def forward(master, x):
    h = x.astype(jnp.bfloat16)
    for w in master["hidden"]:
        h = jnp.dot(h, w.astype(jnp.bfloat16), preferred_element_type=jnp.float32)
        h = jax.nn.gelu(h).astype(jnp.bfloat16)
    dims = (((1,), (0,)), ((), ()))
    return lax.dot_general(h, master["head"], dims, preferred_element_type=jnp.float32)


def loss_fn(master, x, y, scale):
    err = forward(master, x) - y
    return jnp.mean(err**2) * scale


def train_step(master, scale, x, y, lr=1e-3):
    grads = jax.grad(loss_fn)(master, x, y, scale)
    grads = jax.tree.map(lambda g: g / scale, grads)
    finite = jnp.all(jnp.array([jnp.all(jnp.isfinite(g)) for g in jax.tree.leaves(grads)]))
    new = jax.tree.map(lambda p, g: p - lr * g, master, grads)
    master = jax.tree.map(lambda n, p: jnp.where(finite, n, p), new, master)
    scale = jnp.where(finite, scale * 2.0, scale / 2.0)
    return master, jnp.clip(scale, 1.0, 2.0**24)


def lint_target():
    f32 = jnp.float32
    master = {
        "hidden": [jax.ShapeDtypeStruct((8, 16), f32), jax.ShapeDtypeStruct((16, 16), f32)],
        "head": jax.ShapeDtypeStruct((16, 1), f32),
    }
    scale = jax.ShapeDtypeStruct((), f32)
    x, y = jnp.ones((4, 8)), jnp.ones((4, 1))
    return jax.jit(train_step), (master, scale, x, y), {"state_argnums": (0, 1)}
