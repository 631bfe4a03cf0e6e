"""Data-augmentation pipeline on uint8 images as input pipelines write it: random flips,
random crops with lax.dynamic_slice, brightness / contrast jitter on uint8 with clip,
histogram equalization (bincount, cumsum on ints, searchsorted), shuffled batches with
random.permutation, vmapped over the batch with per-example keys."""

import jax
import jax.numpy as jnp
from jax import lax, random


def random_flip(key, img):
    flip = random.bernoulli(key)
    return jnp.where(flip, img[:, ::-1, :], img)


def random_crop(key, img, size):
    h, w, c = img.shape
    padded = jnp.pad(img, ((2, 2), (2, 2), (0, 0)), mode="edge")
    ky, kx = random.split(key)
    y = random.randint(ky, (), 0, h + 4 - size + 1)
    x = random.randint(kx, (), 0, w + 4 - size + 1)
    return lax.dynamic_slice(padded, (y, x, 0), (size, size, c))


def adjust_brightness(img, delta):
    # delta is an int in [-32, 32]; compute in int16 to avoid uint8 wrap-around
    out = img.astype(jnp.int16) + delta  # expect: implicit-promotion
    return jnp.clip(out, 0, 255).astype(jnp.uint8)


def adjust_contrast(img, factor):
    x = img.astype(jnp.float32)
    mean = jnp.mean(x, axis=(0, 1), keepdims=True)
    return jnp.clip(jnp.round((x - mean) * factor + mean), 0, 255).astype(jnp.uint8)


def equalize(channel):
    hist = jnp.bincount(channel.ravel(), length=256)
    cdf = jnp.cumsum(hist)
    cdf_min = cdf[jnp.argmax(cdf > 0)]
    denom = jnp.maximum(cdf[-1] - cdf_min, 1)
    lut = jnp.clip((cdf - cdf_min) * 255 // denom, 0, 255).astype(jnp.uint8)
    return lut[channel]


def quantile_bins(img, n_bins=4):
    flat = jnp.sort(img.ravel())
    edges = flat[(jnp.arange(1, n_bins) * flat.size) // n_bins]
    return jnp.searchsorted(edges, img, side="right").astype(jnp.uint8)


def augment(key, img, crop=6):
    k1, k2, k3, k4 = random.split(key, 4)
    img = random_flip(k1, img)
    img = random_crop(k2, img, crop)
    delta = random.randint(k3, (), -32, 33)
    img = adjust_brightness(img, delta)
    factor = random.uniform(k4, (), minval=0.8, maxval=1.2)
    img = adjust_contrast(img, factor)
    return img


def run(key, images, labels):
    key, perm_key = random.split(key)
    perm = random.permutation(perm_key, images.shape[0])
    images, labels = images[perm], labels[perm]
    keys = random.split(key, images.shape[0])
    aug = jax.vmap(augment)(keys, images)
    eq = jax.vmap(jax.vmap(equalize, in_axes=-1, out_axes=-1))(aug)
    bins = quantile_bins(eq[0, ..., 0])
    batches = aug.reshape(2, -1, *aug.shape[1:])
    normalized = (batches.astype(jnp.float32) / 255.0 - 0.5) / 0.25
    return aug, eq, bins, labels.reshape(2, -1), normalized.mean(axis=(1, 2, 3, 4))


def inputs(rng):
    images = rng.integers(0, 256, size=(4, 8, 8, 3)).astype("uint8")
    labels = rng.integers(0, 10, size=4).astype("int32")
    return random.PRNGKey(11), images, labels
