"""A two-layer MLP classifier trained with SGD + momentum written by hand (the update
optax.sgd(momentum=0.9) would do), jit-compiled, with accuracy metrics. Clean."""

import itertools

import jax
import jax.numpy as jnp

LAYERS = (16, 32, 10)


def init_mlp(key, sizes=LAYERS):
    params = []
    for din, dout in itertools.pairwise(sizes):
        key, wkey = jax.random.split(key)
        w = jax.random.normal(wkey, (din, dout)) * jnp.sqrt(2.0 / din)
        params.append({"w": w, "b": jnp.zeros((dout,))})
    return params


def forward(params, x):
    *hidden, last = params
    for layer in hidden:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ last["w"] + last["b"]


def cross_entropy(params, x, labels):
    logits = forward(params, x)
    logp = jax.nn.log_softmax(logits)
    onehot = jax.nn.one_hot(labels, logits.shape[-1])
    return -jnp.mean(jnp.sum(onehot * logp, axis=-1))


def accuracy(params, x, labels):
    pred = jnp.argmax(forward(params, x), axis=-1)
    return jnp.mean(pred == labels)


@jax.jit
def train_step(params, momentum, x, labels, lr=0.05, beta=0.9):
    loss, grads = jax.value_and_grad(cross_entropy)(params, x, labels)
    momentum = jax.tree.map(lambda m, g: beta * m + g, momentum, grads)
    params = jax.tree.map(lambda p, m: p - lr * m, params, momentum)
    metrics = {"loss": loss, "accuracy": accuracy(params, x, labels)}
    return params, momentum, metrics


def lint_target():
    """The step with abstract arguments (shapes and dtypes, as jax.eval_shape gives)."""

    def make():
        params = init_mlp(jax.random.key(0))
        momentum = jax.tree.map(jnp.zeros_like, params)
        x = jax.random.normal(jax.random.key(1), (8, LAYERS[0]))
        labels = jax.random.randint(jax.random.key(2), (8,), 0, LAYERS[-1])
        return params, momentum, x, labels

    return train_step, jax.eval_shape(make), {"state_argnums": (0, 1)}
