"""Differentially private SGD: per-example gradients with vmap(grad), per-example
clipping, Gaussian noise, a rematerialized residual block and a custom_jvp
numerically safe log1p(exp(x)). Clean."""

import functools

import jax
import jax.numpy as jnp


@jax.custom_jvp
def softplus(x):
    return jnp.logaddexp(x, 0.0)


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return softplus(x), jax.nn.sigmoid(x) * dx


@functools.partial(jax.checkpoint, prevent_cse=False)
def residual_block(w, h):
    return h + softplus(h @ w)


def predict(params, x):
    h = x @ params["inp"]
    for w in params["blocks"]:
        h = residual_block(w, h)
    return jnp.squeeze(h @ params["head"], -1)


def example_loss(params, x, y):
    return jnp.square(predict(params, x[None])[0] - y)


def clipped_noisy_grad(params, xs, ys, key, clip=1.0, sigma=0.5):
    grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, xs, ys)
    leaves, tree = jax.tree.flatten(grads)
    norms = jnp.sqrt(sum(jnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1) for g in leaves))
    factor = jnp.minimum(1.0, clip / (norms + 1e-12))
    keys = jax.random.split(key, len(leaves))
    noisy = [
        (jnp.einsum("b,b...->...", factor, g) + sigma * clip * jax.random.normal(k, g.shape[1:]))
        / xs.shape[0]
        for g, k in zip(leaves, keys, strict=True)
    ]
    return jax.tree.unflatten(tree, noisy)


@jax.jit
def dp_step(params, xs, ys, key, lr=0.1):
    grads = clipped_noisy_grad(params, xs, ys, key)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def lint_target():
    """The step with abstract arguments (shapes and dtypes, as jax.eval_shape gives)."""

    def make():
        k = jax.random.split(jax.random.key(0), 4)
        params = {
            "inp": jax.random.normal(k[0], (5, 6)) * 0.3,
            "blocks": [jax.random.normal(k[1], (6, 6)) * 0.1, jax.random.normal(k[2], (6, 6))],
            "head": jax.random.normal(k[3], (6, 1)),
        }
        return params, jnp.ones((4, 5)), jnp.arange(4.0)

    return dp_step, (*jax.eval_shape(make), jax.random.key(7)), {"state_argnums": 0}
