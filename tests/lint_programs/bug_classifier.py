"""An MLP classifier training loop with planted dtype bugs: a bool one-hot multiplied
into float log-probabilities, bfloat16 weights meeting float32 activations in a helper,
and a Python-float running-loss state that comes back strongly typed."""

import jax
import jax.numpy as jnp

CLASSES = 5


def init(key):
    k1, k2 = jax.random.split(key)
    return {
        "hidden": jax.random.normal(k1, (8, 16)),
        "head": jax.random.normal(k2, (16, CLASSES)).astype(jnp.bfloat16),
    }


def _logits(params, x):
    h = jax.nn.relu(x @ params["hidden"])
    return h @ params["head"]  # expect: implicit-promotion


def loss_fn(params, x, labels):
    logp = jax.nn.log_softmax(_logits(params, x))
    onehot = labels[:, None] == jnp.arange(CLASSES)
    return -jnp.mean(jnp.sum(onehot * logp, axis=-1))  # expect: implicit-promotion


def train_step(params, metrics, x, labels):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
    params = jax.tree.map(lambda p, g: p - (0.01 * g).astype(p.dtype), params, grads)
    correct = jnp.argmax(_logits(params, x), -1) == labels
    metrics = {
        "steps": metrics["steps"] + 1,
        "loss": 0.9 * metrics["loss"] + 0.1 * loss,  # expect: weak-flip
        "accuracy": jnp.mean(correct),
    }
    return params, metrics


def lint_target():
    params = jax.eval_shape(init, jax.random.key(0))  # shapes and dtypes
    metrics = {"steps": 0, "loss": 0.0, "accuracy": jnp.float32(0.0)}
    x = jnp.ones((4, 8))
    labels = jnp.array([0, 1, 2, 3])
    return train_step, (params, metrics, x, labels), {"state_argnums": (0, 1)}
