import jax.numpy as jnp
from jax import lax


def robust_normalize(v, eps=1e-6):
    """Divide by the norm when it is large enough, else return a one-hot fallback."""
    n = jnp.linalg.norm(v)
    return lax.cond(
        n > 0.5,
        lambda u: u / (n + eps),
        lambda u: jnp.zeros_like(u).at[jnp.argmax(jnp.abs(u))].set(1),
        v,
    )


def per_example(args):
    x, label = args
    y = robust_normalize(x)
    score = lax.cond(label > 0, lambda z: jnp.sum(z), lambda z: -jnp.max(z), y)
    return {"y": y, "score": score, "pos": label > 0}


def run(xs, labels, scale):
    out = lax.map(per_example, (xs * scale, labels))
    chunked = lax.map(lambda r: jnp.sum(r * r), xs, batch_size=3)
    ints = lax.map(lambda i: lax.cond(i % 2 == 0, lambda j: j // 2, lambda j: 3 * j + 1, i), labels)
    return out, chunked, ints


def inputs(rng):
    xs = rng.standard_normal((7, 4)).astype("float32")
    xs[2] *= 0.01  # a small row: the fallback branch
    return xs, rng.integers(-3, 4, 7).astype("int32"), 2.0
