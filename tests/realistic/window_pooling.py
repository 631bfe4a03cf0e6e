import jax.numpy as jnp
from jax import lax


def max_pool(x, window=2, stride=2):
    """NHWC max pooling by reduce_window."""
    return lax.reduce_window(
        x, -jnp.inf, lax.max, (1, window, window, 1), (1, stride, stride, 1), "VALID"
    )


def avg_pool(x, window=3):
    sums = lax.reduce_window(x, 0.0, lax.add, (1, window, window, 1), (1, 1, 1, 1), "SAME")
    ones = jnp.ones((*x.shape[:3], 1), x.dtype)
    counts = lax.reduce_window(ones, 0.0, lax.add, (1, window, window, 1), (1, 1, 1, 1), "SAME")
    return sums / counts


def tile_rows(x, tile=2):
    """Write each pooled row, scaled by its index, into a buffer with dynamic_update_slice."""
    n = x.shape[1]
    buf = jnp.zeros((x.shape[0], n * tile, *x.shape[2:]), x.dtype)

    def body(i, b):
        row = lax.dynamic_slice_in_dim(x, i, 1, axis=1) * (i + 1)
        b = lax.dynamic_update_slice(b, row, (0, i * tile, 0, 0))
        return lax.dynamic_update_slice(b, -row, (0, i * tile + 1, 0, 0))

    return lax.fori_loop(0, n, body, buf)


def run(images, counts):
    mp = max_pool(images)
    ap = avg_pool(images)
    tiled = tile_rows(mp)
    lowest = jnp.array(jnp.iinfo(counts.dtype).min, counts.dtype)
    int_max = lax.reduce_window(counts, lowest, lax.max, (2, 2), (1, 1), "VALID")
    zero = jnp.zeros((), counts.dtype)
    padded = lax.reduce_window(counts, zero, lax.add, (3, 1), (2, 1), ((1, 1), (0, 0)))
    return mp, ap, tiled, int_max, padded


def inputs(rng):
    return (
        rng.standard_normal((2, 6, 6, 3)).astype("float32"),
        rng.integers(0, 9, (5, 4)).astype("int32"),
    )
