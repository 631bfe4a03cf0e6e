import jax.numpy as jnp


def run(x, w):
    xb = x.astype(jnp.bfloat16)
    wb = w.astype(jnp.bfloat16)
    acc = jnp.matmul(xb, wb, preferred_element_type=jnp.float32)
    out = jnp.dot(xb, wb, preferred_element_type=jnp.float32)
    return acc, out.astype(jnp.bfloat16), (xb @ wb).dtype == jnp.bfloat16


def inputs(rng):
    return rng.standard_normal((4, 8)).astype("float32"), rng.standard_normal((8, 3)).astype(
        "float32"
    )
