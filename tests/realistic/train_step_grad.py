import jax
import jax.numpy as jnp
from jax import nn


def init(rng_w1, rng_w2):
    return {
        "l1": {"w": rng_w1, "b": jnp.zeros(rng_w1.shape[1])},
        "l2": {"w": rng_w2, "b": jnp.zeros(rng_w2.shape[1])},
    }


def forward(params, x):
    h = nn.silu(x @ params["l1"]["w"] + params["l1"]["b"])
    return h @ params["l2"]["w"] + params["l2"]["b"]


def loss_fn(params, x, labels):
    logits = forward(params, x)
    logp = nn.log_softmax(logits)
    nll = -jnp.take_along_axis(logp, labels[:, None], axis=1).mean()
    l2 = sum(jnp.sum(w**2) for w in jax.tree_util.tree_leaves(params))
    return nll + 1e-4 * l2, {"accuracy": jnp.mean(jnp.argmax(logits, -1) == labels)}


def run(w1, w2, x, labels, lr=0.05):
    params = init(w1, w2)
    (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, labels)
    grad_norm = jnp.sqrt(sum(jnp.vdot(g, g) for g in jax.tree_util.tree_leaves(grads)))
    scale = jnp.minimum(1.0, 1.0 / (grad_norm + 1e-6))
    params = jax.tree_util.tree_map(lambda p, g: p - lr * scale * g, params, grads)
    per_example = jax.vmap(lambda xi, yi: loss_fn(params, xi[None], yi[None])[0])(x, labels)
    saliency = jax.vmap(jax.grad(lambda xi, p: forward(p, xi[None]).max()), in_axes=(0, None))(
        x, params
    )
    return loss, aux, grad_norm, params, per_example, jnp.abs(saliency).mean(0)


def inputs(rng):
    w1 = (rng.standard_normal((5, 8)) * 0.3).astype("float32")
    w2 = (rng.standard_normal((8, 3)) * 0.3).astype("float32")
    x = rng.standard_normal((6, 5)).astype("float32")
    labels = rng.integers(0, 3, size=6).astype("int32")
    return w1, w2, x, labels
