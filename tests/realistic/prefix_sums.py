import jax.numpy as jnp
from jax import lax


def linear_recurrence(a, b, reverse=False):
    """h[t] = a[t] * h[t-1] + b[t], h[-1] = 0, by an associative scan over (a, b) pairs."""

    def combine(left, right):
        a_l, b_l = left
        a_r, b_r = right
        return a_l * a_r, a_r * b_l + b_r

    if reverse:

        def combine(left, right):  # the reversed order
            a_l, b_l = left
            a_r, b_r = right
            return a_l * a_r, a_l * b_r + b_l

    _, h = lax.associative_scan(combine, (a, b), reverse=reverse)
    return h


def segmented_max(x):
    return lax.associative_scan(jnp.maximum, x, axis=1)


def run(x, decay, counts):
    csum = lax.associative_scan(jnp.add, x)
    cprod = lax.associative_scan(lambda u, v: u * v, 1.0 + 0.1 * x, axis=0)
    a = jnp.full(x.shape, decay, x.dtype)
    ema = linear_recurrence(a, (1 - decay) * x)
    back = linear_recurrence(a, x, reverse=True)
    running = segmented_max(x)
    totals = lax.associative_scan(jnp.add, counts)  # integers stay integers
    both = lax.associative_scan(
        lambda p, q: {"s": p["s"] + q["s"], "m": jnp.minimum(p["m"], q["m"])},
        {"s": x, "m": x},
        reverse=True,
    )
    return csum, cprod, ema, back, running, totals, both


def inputs(rng):
    x = rng.standard_normal((9, 3)).astype("float32")
    return x, 0.9, rng.integers(0, 5, 9).astype("int32")
