import jax.numpy as jnp
from jax import nn


def init(rng, sizes):
    params = []
    for m, n in zip(sizes[:-1], sizes[1:], strict=True):  # noqa: RUF007
        w = rng.standard_normal((m, n)).astype("float32") / jnp.sqrt(m)
        params.append((w, jnp.zeros((n,), jnp.float32)))
    return params


def run(params, x, labels):
    h = x
    for w, b in params[:-1]:
        h = nn.relu(h @ w + b)
    w, b = params[-1]
    logits = h @ w + b
    logp = nn.log_softmax(logits, axis=-1)
    onehot = nn.one_hot(labels, logits.shape[-1])
    return -jnp.mean(jnp.sum(onehot * logp, axis=-1))


def inputs(rng):
    params = init(rng, [8, 16, 4])
    x = rng.standard_normal((5, 8)).astype("float32")
    labels = rng.integers(0, 4, size=(5,)).astype("int32")
    return params, x, labels
