"""An architecture search over activation functions: one small MLP evaluated with each of
jax.nn's activations (relu6, hard_sigmoid, hard_swish, hard_tanh, celu, selu, elu with alpha,
glu, leaky_relu, squareplus, mish, log_sigmoid, softplus, sparse_plus, gelu exact/approximate),
nn.standardize, log_softmax / softmax with axis tuples, and nn.one_hot with dtype=."""

import jax.numpy as jnp
from jax import nn

ACTIVATIONS = {
    "relu6": nn.relu6,
    "hard_sigmoid": nn.hard_sigmoid,
    "hard_swish": nn.hard_swish,
    "hard_tanh": nn.hard_tanh,
    "celu": lambda x: nn.celu(x, alpha=0.5),
    "selu": nn.selu,
    "elu": lambda x: nn.elu(x, alpha=2.0),
    "leaky": lambda x: nn.leaky_relu(x, negative_slope=0.05),
    "squareplus": nn.squareplus,
    "mish": nn.mish,
    "log_sigmoid": nn.log_sigmoid,
    "softplus": nn.softplus,
    "sparse_plus": nn.sparse_plus,
    "gelu_exact": lambda x: nn.gelu(x, approximate=False),
    "gelu_tanh": nn.gelu,
    "swish": nn.swish,
    "soft_sign": nn.soft_sign,
}


def mlp(x, w1, w2, act):
    h = act(x @ w1)
    h = nn.glu(jnp.concatenate([h, h[:, ::-1]], axis=-1))
    return nn.log_softmax(h @ w2, axis=-1)


def run(x, w1, w2, labels):
    z = nn.standardize(x, axis=0, epsilon=1e-5)
    onehot = nn.one_hot(labels, w2.shape[1], dtype=jnp.bfloat16)
    losses = {}
    for name, act in ACTIVATIONS.items():
        logp = mlp(z, w1, w2, act)
        losses[name] = -jnp.mean(jnp.sum(logp * onehot, axis=-1))
    joint = nn.softmax(z, axis=(0, 1))
    lsm = nn.log_softmax(z, axis=(0, 1))
    return losses, joint, lsm, onehot, nn.relu(labels - 1), nn.sigmoid(labels * 0.5)


def inputs(rng):
    x = rng.standard_normal((6, 4)).astype("float32")
    w1 = (0.6 * rng.standard_normal((4, 5))).astype("float32")
    w2 = (0.6 * rng.standard_normal((5, 3))).astype("float32")
    return x, w1, w2, jnp.array([0, 1, 2, 1, 0, 2], dtype=jnp.int32)
