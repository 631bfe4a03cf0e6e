import jax.numpy as jnp
from jax import lax


def run(img, kernel):
    img = img.astype(jnp.float32) / 255.0
    x = img.transpose(2, 0, 1)[None]  # NCHW
    k = jnp.broadcast_to(kernel, (3, 1, *kernel.shape))
    blurred = lax.conv_general_dilated(x, k, (1, 1), "SAME", feature_group_count=3)
    pooled = lax.reduce_window(blurred, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    gray = jnp.dot(img, jnp.array([0.299, 0.587, 0.114]))
    gx = jnp.diff(gray, axis=1, prepend=gray[:, :1])
    gy = jnp.diff(gray, axis=0, append=gray[-1:, :])
    mag = jnp.hypot(gx, gy)
    padded = jnp.pad(gray, 2, mode="reflect")
    flipped = jnp.flip(jnp.rot90(img, k=1), axis=-1)
    quant = jnp.round(img * 15).astype(jnp.uint8)
    hist = jnp.bincount(quant.ravel(), length=16)
    return blurred, pooled, mag.max(), padded.shape, flipped, hist, (quant // 4).astype(jnp.int8)


def inputs(rng):
    img = rng.integers(0, 256, size=(6, 8, 3)).astype("uint8")
    kernel = jnp.array([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]], jnp.float32) / 16
    return img, kernel
