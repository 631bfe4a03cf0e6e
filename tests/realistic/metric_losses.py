"""Losses from detection and metric learning: sigmoid focal loss (RetinaNet, as optax
writes it), Huber / smooth-L1 box regression, batch-hard triplet loss over pairwise
Euclidean distances with masks from label equality, and a contrastive margin loss."""

import jax.numpy as jnp
from jax import nn


def sigmoid_focal_loss(logits, labels, alpha=0.25, gamma=2.0):
    p = nn.sigmoid(logits)
    ce = -(labels * nn.log_sigmoid(logits) + (1 - labels) * nn.log_sigmoid(-logits))
    p_t = p * labels + (1 - p) * (1 - labels)
    loss = ce * ((1 - p_t) ** gamma)
    weighted = (alpha * labels + (1 - alpha) * (1 - labels)) * loss
    return jnp.where(alpha >= 0, weighted, loss)


def huber(pred, target, delta=1.0):
    err = jnp.abs(pred - target)
    quadratic = jnp.minimum(err, delta)
    return 0.5 * quadratic**2 + delta * (err - quadratic)


def pairwise_distances(emb, squared=False):
    dot = emb @ emb.T
    sq = jnp.diag(dot)
    d = jnp.maximum(sq[:, None] - 2.0 * dot + sq[None, :], 0.0)
    if squared:
        return d
    zero = jnp.equal(d, 0.0)
    return jnp.sqrt(d + zero * 1e-16) * (1.0 - zero)  # expect: implicit-promotion


def batch_hard_triplet(labels, emb, margin=0.3):
    d = pairwise_distances(emb)
    same = labels[:, None] == labels[None, :]
    not_self = ~jnp.eye(labels.shape[0], dtype=bool)
    pos = jnp.max(jnp.where(same & not_self, d, 0.0), axis=1)
    max_d = jnp.max(d, axis=1, keepdims=True)
    neg = jnp.min(d + max_d * same, axis=1)  # expect: implicit-promotion
    return jnp.mean(nn.relu(pos - neg + margin)), jnp.sum(pos > 0)


def contrastive(labels, emb, margin=1.0):
    d = pairwise_distances(emb, squared=True)
    same = (labels[:, None] == labels[None, :]).astype(emb.dtype)
    return jnp.mean(same * d + (1 - same) * nn.relu(margin - jnp.sqrt(d + 1e-12)) ** 2)


def run(logits, targets, boxes, gt_boxes, emb, labels):
    focal = sigmoid_focal_loss(logits, targets).sum() / jnp.maximum(targets.sum(), 1)
    box = jnp.mean(huber(boxes, gt_boxes, delta=1.0 / 9.0).sum(-1))
    triplet, active = batch_hard_triplet(labels, emb)
    return focal, box, triplet, active, contrastive(labels, emb)


def inputs(rng):
    return (
        rng.standard_normal((6, 3)).astype("float32"),
        (rng.uniform(size=(6, 3)) > 0.7).astype("float32"),
        rng.standard_normal((6, 4)).astype("float32"),
        rng.standard_normal((6, 4)).astype("float32"),
        rng.standard_normal((8, 5)).astype("float32"),
        rng.integers(0, 3, 8).astype("int32"),
    )
