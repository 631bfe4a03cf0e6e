"""VQ-VAE vector quantisation: nearest codebook entry by squared distance (argmin), the
codebook and commitment losses with stop_gradient, the straight-through gradient to the
encoder, EMA codebook updates with segment sums, and perplexity of the code usage."""

import jax
import jax.numpy as jnp
from jax import lax, nn, ops


def quantize(z, codebook):
    d = (
        jnp.sum(z**2, axis=-1, keepdims=True)
        - 2 * z @ codebook.T
        + jnp.sum(codebook**2, axis=-1)[None, :]
    )
    idx = jnp.argmin(d, axis=-1)
    zq = jnp.take(codebook, idx, axis=0)
    return zq, idx


def vq_loss(z, codebook, beta=0.25):
    zq, idx = quantize(z, codebook)
    codebook_loss = jnp.mean((lax.stop_gradient(z) - zq) ** 2)
    commitment = jnp.mean((z - lax.stop_gradient(zq)) ** 2)
    zq_st = z + lax.stop_gradient(zq - z)
    recon = jnp.mean((zq_st - 0.5 * z) ** 2)
    return recon + codebook_loss + beta * commitment, idx


def ema_update(codebook, counts, sums, z, idx, decay=0.99, eps=1e-5):
    k = codebook.shape[0]
    onehot = nn.one_hot(idx, k)
    counts = decay * counts + (1 - decay) * onehot.sum(0)
    sums = decay * sums + (1 - decay) * ops.segment_sum(z, idx, num_segments=k)
    n = counts.sum()
    smoothed = (counts + eps) / (n + k * eps) * n
    return sums / smoothed[:, None], counts, sums


def run(z, codebook):
    (loss, idx), grads = jax.value_and_grad(vq_loss, argnums=(0, 1), has_aux=True)(z, codebook)
    counts = jnp.zeros(codebook.shape[0])
    new_codebook, counts, _ = ema_update(codebook, counts, codebook, z, idx)
    probs = jnp.bincount(idx, length=codebook.shape[0]) / idx.shape[0]
    perplexity = jnp.exp(-jnp.sum(probs * jnp.log(probs + 1e-10)))
    return loss, idx, grads, new_codebook, counts, perplexity


def inputs(rng):
    return (
        rng.standard_normal((10, 4)).astype("float32"),
        rng.standard_normal((6, 4)).astype("float32"),
    )
