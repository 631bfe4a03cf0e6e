"""Parameters initialised inside the jitted function, as `jax.jit(init)(key)` and
stax / flax-style `init_fn(rng, input_shape)` code does: jax.nn.initializers (glorot,
he, lecun, orthogonal, truncated normal), a key per layer from random.split, then a
forward pass and a loss, all in one traced call."""

import jax.numpy as jnp
from jax import nn, random
from jax.nn import initializers


def dense_init(key, in_dim, out_dim, kernel_init=initializers.glorot_uniform()):  # noqa: B008
    k_w, k_b = random.split(key)
    w = kernel_init(k_w, (in_dim, out_dim), jnp.float32)
    b = initializers.normal(stddev=1e-6)(k_b, (out_dim,), jnp.float32)
    return {"w": w, "b": b}


def conv_init(key, k, c_in, c_out):
    return {
        "w": initializers.he_normal(in_axis=(0, 1, 2), out_axis=3)(key, (k, k, c_in, c_out)),
        "b": initializers.zeros(key, (c_out,), jnp.float32),
    }


def init_params(key, sizes):
    keys = random.split(key, len(sizes) + 2)
    layers = [
        dense_init(k, m, n, initializers.lecun_normal() if i else initializers.glorot_normal())
        for i, (k, m, n) in enumerate(zip(keys, sizes[:-1], sizes[1:], strict=False))
    ]
    rnn = initializers.orthogonal(scale=0.9)(keys[-2], (sizes[-1], sizes[-1]))
    embed = initializers.truncated_normal(0.02)(keys[-1], (10, sizes[0]), jnp.float32)
    return {"layers": layers, "rnn": rnn, "embed": embed}


def forward(params, tokens):
    x = params["embed"][tokens]
    for layer in params["layers"][:-1]:
        x = nn.gelu(x @ layer["w"] + layer["b"])
    last = params["layers"][-1]
    h = jnp.tanh(x @ last["w"] + last["b"])
    return h @ params["rnn"]


def run(key, tokens, targets):
    params = init_params(key, [8, 16, 4])
    conv = conv_init(random.fold_in(key, 1), 3, 2, 4)
    logits = forward(params, tokens)
    loss = -jnp.mean(jnp.sum(nn.log_softmax(logits) * nn.one_hot(targets, 4), axis=-1))
    gram = params["rnn"].T @ params["rnn"]
    return params, conv, loss, gram


def inputs(rng):
    tokens = jnp.asarray(rng.integers(0, 10, 6), dtype=jnp.int32)
    targets = jnp.asarray(rng.integers(0, 4, 6), dtype=jnp.int32)
    return random.PRNGKey(4), tokens, targets
