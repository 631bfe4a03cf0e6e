"""Contrastive learning: SimCLR-style NT-Xent (InfoNCE) with a temperature, CLIP's
symmetric loss with a learnable log-temperature, label smoothing, and top-1 accuracy."""

import jax
import jax.numpy as jnp
from jax import lax, nn


def l2_normalize(x, axis=-1, eps=1e-12):
    return x * lax.rsqrt(jnp.maximum(jnp.sum(x**2, axis=axis, keepdims=True), eps))


def smooth_labels(labels, num_classes, alpha=0.1):
    one_hot = nn.one_hot(labels, num_classes)
    return one_hot * (1.0 - alpha) + alpha / num_classes


def softmax_cross_entropy(logits, targets):
    return -jnp.sum(targets * nn.log_softmax(logits, axis=-1), axis=-1)


def nt_xent(z1, z2, temperature=0.1):
    n = z1.shape[0]
    z = l2_normalize(jnp.concatenate([z1, z2], axis=0))
    sim = z @ z.T / temperature
    sim = jnp.where(jnp.eye(2 * n, dtype=jnp.bool_), -jnp.inf, sim)
    positives = jnp.concatenate([jnp.arange(n) + n, jnp.arange(n)])
    log_prob = sim - nn.logsumexp(sim, axis=1, keepdims=True)
    loss = -log_prob[jnp.arange(2 * n), positives].mean()
    acc = jnp.mean(jnp.argmax(sim, axis=1) == positives)
    return loss, acc


def clip_loss(image_emb, text_emb, log_temp, label_smoothing=0.1):
    image_emb = image_emb / jnp.linalg.norm(image_emb, axis=-1, keepdims=True)
    text_emb = text_emb / jnp.linalg.norm(text_emb, axis=-1, keepdims=True)
    scale = jnp.exp(jnp.clip(log_temp, -jnp.log(100.0), jnp.log(100.0)))
    logits = scale * image_emb @ text_emb.T
    n = logits.shape[0]
    targets = smooth_labels(jnp.arange(n), n, label_smoothing)
    loss_i = softmax_cross_entropy(logits, targets).mean()
    loss_t = softmax_cross_entropy(logits.T, targets).mean()
    return (loss_i + loss_t) / 2


def encoder(params, x):
    return jnp.tanh(x @ params["w1"]) @ params["w2"]


def run(params, view1, view2, text, log_temp):
    z1, z2 = encoder(params, view1), encoder(params, view2)
    simclr, acc = nt_xent(z1, z2, temperature=0.5)
    (clip, grads) = jax.value_and_grad(clip_loss, argnums=(0, 2))(z1, text, log_temp)
    return simclr, acc, clip, grads


def inputs(rng):
    params = {
        "w1": rng.standard_normal((6, 10)).astype("float32") * 0.4,
        "w2": rng.standard_normal((10, 4)).astype("float32") * 0.4,
    }
    x = rng.standard_normal((8, 6)).astype("float32")
    view1 = x + 0.1 * rng.standard_normal((8, 6)).astype("float32")
    view2 = x + 0.1 * rng.standard_normal((8, 6)).astype("float32")
    text = rng.standard_normal((8, 4)).astype("float32")
    return params, view1, view2, text, jnp.log(1 / 0.07)
