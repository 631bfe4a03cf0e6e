"""bfloat16/float16 mixed-precision training with dynamic loss scaling (as jmp does it):
a registered pytree policy class, half-precision compute, float32 master weights, a
scale that halves on non-finite gradients and doubles after a run of good steps."""

import functools

import jax
import jax.numpy as jnp
from jax import lax, nn


@jax.tree_util.register_pytree_node_class
class DynamicLossScale:
    def __init__(self, loss_scale, counter=None, period=2, factor=2):
        self.loss_scale = loss_scale
        self.counter = jnp.zeros([], jnp.int32) if counter is None else counter
        self.period = period
        self.factor = factor

    def tree_flatten(self):
        return (self.loss_scale, self.counter), (self.period, self.factor)

    @classmethod
    def tree_unflatten(cls, aux, children):
        loss_scale, counter = children
        period, factor = aux
        return cls(loss_scale, counter, period, factor)

    def scale(self, tree):
        return jax.tree_util.tree_map(lambda x: x * self.loss_scale.astype(x.dtype), tree)

    def unscale(self, tree):
        inv = 1.0 / self.loss_scale
        return jax.tree_util.tree_map(lambda x: x * inv.astype(x.dtype), tree)

    def adjust(self, grads_finite):
        one = jnp.ones([], self.counter.dtype)

        def first_finite(a, b):
            return lax.select(jnp.isfinite(a).all(), a, b)

        loss_scale = lax.select(
            grads_finite,
            lax.select(
                self.counter == (self.period - 1),
                first_finite(self.loss_scale * self.factor, self.loss_scale),
                self.loss_scale,
            ),
            jnp.maximum(one.astype(self.loss_scale.dtype), self.loss_scale / self.factor),
        )
        counter = ((self.counter + one) % self.period) * grads_finite  # expect: implicit-promotion
        return DynamicLossScale(loss_scale, counter, self.period, self.factor)


def all_finite(tree):
    leaves = jax.tree_util.tree_leaves(tree)
    return jnp.stack([jnp.all(jnp.isfinite(x)) for x in leaves]).all()


def cast_to(dtype, tree):
    return jax.tree_util.tree_map(
        lambda x: x.astype(dtype) if jnp.issubdtype(x.dtype, jnp.floating) else x, tree
    )


def loss_fn(params, x, y, compute_dtype):
    p = cast_to(compute_dtype, params)
    x = x.astype(compute_dtype)
    h = nn.gelu(x @ p["w1"] + p["b1"])
    logits = (h @ p["w2"]).astype(jnp.float32)
    labels = nn.one_hot(y, logits.shape[-1])
    return -jnp.mean(jnp.sum(labels * nn.log_softmax(logits), axis=-1))


@functools.partial(jax.jit, static_argnames=("compute_dtype",))
def train_step(params, loss_scale, x, y, compute_dtype=jnp.bfloat16, lr=0.1):
    def scaled_loss(p):
        loss = loss_fn(p, x, y, compute_dtype)
        return loss_scale.scale(loss), loss

    grads, loss = jax.grad(scaled_loss, has_aux=True)(params)
    grads = loss_scale.unscale(grads)
    finite = all_finite(grads)
    loss_scale = loss_scale.adjust(finite)
    new_params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    params = jax.tree_util.tree_map(
        lambda new, old: jnp.where(finite, new, old), new_params, params
    )
    return params, loss_scale, loss


def run(params, x, y):
    scale = DynamicLossScale(jnp.asarray(2.0**15))
    losses = []
    for dtype in (jnp.bfloat16, jnp.float16, jnp.bfloat16):
        params, scale, loss = train_step(params, scale, x, y, compute_dtype=dtype)
        losses.append(loss)
    return params, scale.loss_scale, scale.counter, jnp.stack(losses)


def inputs(rng):
    params = {
        "w1": (rng.standard_normal((6, 16)) * 0.3).astype("float32"),
        "b1": jnp.zeros(16, jnp.float32),
        "w2": (rng.standard_normal((16, 4)) * 0.3).astype("float32"),
    }
    x = rng.standard_normal((8, 6)).astype("float32")
    y = rng.integers(0, 4, 8).astype("int32")
    return params, x, y
