"""A normalizing flow: a learned invertible linear layer (log|det| by jnp.linalg.slogdet,
as Glow's 1x1 convolution), RealNVP affine coupling layers with tanh-bounded scales, and
the exact log-likelihood under a standard normal base density, with its gradient."""

import jax
import jax.numpy as jnp
from jax import nn


def coupling(params, x, flip):
    d = x.shape[-1] // 2
    x1, x2 = (x[:, d:], x[:, :d]) if flip else (x[:, :d], x[:, d:])
    h = nn.relu(x1 @ params["w1"] + params["b1"])
    log_s = jnp.tanh(h @ params["ws"])
    t = h @ params["wt"]
    y2 = x2 * jnp.exp(log_s) + t
    y = jnp.concatenate([y2, x1] if flip else [x1, y2], axis=-1)
    return y, jnp.sum(log_s, axis=-1)


def invertible_linear(w, x):
    sign, logdet = jnp.linalg.slogdet(w)
    return x @ w.T, jnp.broadcast_to(logdet, x.shape[:1]), sign


def log_likelihood(params, x):
    log_det = jnp.zeros(x.shape[0], x.dtype)
    signs = []
    for i, layer in enumerate(params["couplings"]):
        x, ld = coupling(layer, x, flip=bool(i % 2))
        log_det = log_det + ld
        x, ld, sign = invertible_linear(params["mix"][i], x)
        log_det = log_det + ld
        signs.append(sign)
    base = -0.5 * jnp.sum(x**2, axis=-1) - 0.5 * x.shape[-1] * jnp.log(2 * jnp.pi)
    return base + log_det, jnp.stack(signs)


def run(params, x):
    ll, signs = log_likelihood(params, x)
    grads = jax.grad(lambda p: -jnp.mean(log_likelihood(p, x)[0]))(params)
    return ll, signs, grads


def inputs(rng):
    d, hidden = 4, 8

    def dense(*shape):
        return (0.3 * rng.standard_normal(shape)).astype("float32")

    couplings = [
        {
            "w1": dense(d // 2, hidden),
            "b1": dense(hidden),
            "ws": dense(hidden, d // 2),
            "wt": dense(hidden, d // 2),
        }
        for _ in range(2)
    ]
    mix = [jnp.asarray(jnp.eye(d) + dense(d, d)) for _ in range(2)]
    return {"couplings": couplings, "mix": mix}, rng.standard_normal((5, d)).astype("float32")
