"""An MLP step with a hand-written Adam, with the bugs optimizer code has had: the
step count used as an int32 exponent of a Python float, a weak Python-float loss scale
in the state that comes back strong (grown up to a numpy float32 bound), a float64
numpy constant, uint8 pixels offset by a literal that wraps, and an int32 label mask
dividing float32 sums."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np

SIZES = (12, 16, 4)
LOG_EPS = np.log(np.float64(1e-8))
MAX_SCALE = np.float32(2.0**24)


def init_params(key):
    params = []
    for din, dout in itertools.pairwise(SIZES):
        key, sub = jax.random.split(key)
        params.append({"w": jax.random.normal(sub, (din, dout)) / din, "b": jnp.zeros(dout)})
    return params


def forward(params, x):
    *hidden, last = params
    for layer in hidden:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ last["w"] + last["b"]


def loss_fn(params, pixels, labels, mask):
    x = (pixels + 256).astype(jnp.float32) / 255.0  # expect: literal-overflow
    logp = jax.nn.log_softmax(forward(params, x))
    nll = -jnp.take_along_axis(logp, labels[:, None], axis=-1)[:, 0]
    nll = jnp.maximum(nll, LOG_EPS)  # expect: x64-truncation
    return jnp.sum(nll * mask) / jnp.sum(mask)  # expect: implicit-promotion


def adam_update(grads, state, b1=0.9, b2=0.999, eps=1e-8, lr=1e-3):
    count = state["count"] + 1
    mu = jax.tree.map(lambda m, g: b1 * m + (1.0 - b1) * g, state["mu"], grads)
    nu = jax.tree.map(lambda v, g: b2 * v + (1.0 - b2) * g * g, state["nu"], grads)
    correction = jnp.sqrt(1.0 - b2**count) / (1.0 - b1**count)  # expect: implicit-promotion
    updates = jax.tree.map(lambda m, v: -lr * correction * m / (jnp.sqrt(v) + eps), mu, nu)
    return updates, {"count": count, "mu": mu, "nu": nu}


@jax.jit
def train_step(params, opt_state, loss_scale, pixels, labels, mask):
    loss, grads = jax.value_and_grad(loss_fn)(params, pixels, labels, mask)
    updates, opt_state = adam_update(grads, opt_state)
    params = jax.tree.map(jnp.add, params, updates)
    finite = jnp.isfinite(loss)
    grown = jnp.clip(loss_scale * 2.0, 1.0, MAX_SCALE)
    loss_scale = jnp.where(finite, grown, loss_scale / 2.0)  # expect: weak-flip
    return params, opt_state, loss_scale, loss


def lint_target():
    def make():
        params = init_params(jax.random.key(0))
        zeros = jax.tree.map(jnp.zeros_like, params)
        return params, {"count": jnp.zeros((), jnp.int32), "mu": zeros, "nu": zeros}

    params, opt_state = jax.eval_shape(make)
    pixels = jax.ShapeDtypeStruct((8, SIZES[0]), jnp.uint8)
    labels = jax.ShapeDtypeStruct((8,), jnp.int32)
    mask = jax.ShapeDtypeStruct((8,), jnp.int32)
    args = (params, opt_state, 1.0, pixels, labels, mask)
    return train_step, args, {"state_argnums": (0, 1, 2)}
