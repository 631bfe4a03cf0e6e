"""Per-example gradients for a convolution-free image model, with planted bugs inside
the transformed functions: uint8 pixels normalized with a Python float (the array
becomes float32) in a nested jit, an int32 mask meeting float32 inside the vmapped
per-example loss, a bfloat16 bias inside a custom_jvp activation and a float64 numpy
table inside a rematerialized block."""

import functools

import jax
import jax.numpy as jnp
import numpy as np

POSITIONS = np.cos(np.linspace(0.0, np.pi, 6))  # float64


@jax.jit
def normalize(images):
    return (images - 127.5) / 127.5  # expect: implicit-promotion


@jax.custom_jvp
def shifted_softplus(x, bias):
    return jnp.logaddexp(x + bias, 0.0) - jnp.log(2.0)  # expect: implicit-promotion


@shifted_softplus.defjvp
def _shifted_softplus_jvp(primals, tangents):
    x, bias = primals
    dx, _ = tangents
    return shifted_softplus(x, bias), jax.nn.sigmoid(x + bias) * dx  # expect: implicit-promotion


@functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.nothing_saveable)
def block(w, h):
    h = h + jnp.asarray(POSITIONS)  # expect: x64-truncation
    return h @ w


def example_loss(params, image, label, mask):
    h = block(params["w"], image.reshape(-1) * params["scale"])
    h = shifted_softplus(h, params["bias"])
    err = (h - label) * mask  # expect: implicit-promotion
    return jnp.sum(err**2)


def per_example_grads(params, images, labels, masks):
    x = normalize(images)
    grad_fn = jax.grad(example_loss)
    return jax.vmap(grad_fn, in_axes=(None, 0, 0, 0))(params, x, labels, masks)


def lint_target():
    params = {
        "w": jnp.ones((6, 3)),
        "scale": jnp.float32(1.0),
        "bias": jnp.zeros(3, jnp.bfloat16),
    }
    images = jnp.zeros((4, 2, 3), jnp.uint8)
    labels = jnp.zeros((4, 3))
    masks = jnp.ones((4, 3), jnp.int32)
    return per_example_grads, (params, images, labels, masks), {}
