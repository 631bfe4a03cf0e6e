import jax.numpy as jnp

MEAN = jnp.array([0.485, 0.456, 0.406])
STD = jnp.array([0.229, 0.224, 0.225])


def run(images):
    x = images.astype(jnp.float32) / 255.0
    x = (x - MEAN) / STD
    x = jnp.transpose(x, (0, 3, 1, 2))
    return x, jnp.clip(images, 10, 245), images.max(axis=(1, 2))


def inputs(rng):
    return (rng.integers(0, 256, size=(2, 6, 5, 3)).astype("uint8"),)
